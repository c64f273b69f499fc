import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('publish_log')
    .addColumn('log_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('post_id', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('profile_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('account_username', 'text')
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('endpoint', 'text')
    .addColumn('content_preview', 'text')
    .addColumn('request', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('response', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('duration_ms', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attempt_number', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('publish_log_tenant_created_idx')
    .on('publish_log')
    .columns(['tenant_id', 'created_at'])
    .execute();
  await db.schema.createIndex('publish_log_post_idx').on('publish_log').columns(['post_id', 'created_at']).execute();
  await db.schema.createIndex('publish_log_created_idx').on('publish_log').columns(['created_at']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
