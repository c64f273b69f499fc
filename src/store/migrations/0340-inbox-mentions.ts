import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * Mentions of a connected account (docs/inbox.md, GET /v1/inbox/mentions): posts and comments by others
 * that name the account, stored by the inbox sync like comments. Keyed by the platform's id of the
 * mentioning item per account, so a mention polled twice is one row; listed by tenant, newest first.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('inbox_mention')
    .addColumn('mention_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('account.account_id').onDelete('cascade'))
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('platform_mention_id', 'text', (c) => c.notNull())
    .addColumn('media_id', 'text', (c) => c.notNull())
    .addColumn('comment_id', 'text')
    .addColumn('author_id', 'text')
    .addColumn('author_name', 'text')
    .addColumn('author_username', 'text')
    .addColumn('author_picture', 'text')
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('published_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('inbox_mention_key')
    .on('inbox_mention')
    .columns(['account_id', 'platform_mention_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('inbox_mention_list_idx')
    .on('inbox_mention')
    .columns(['tenant_id', 'published_at', 'mention_id'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
