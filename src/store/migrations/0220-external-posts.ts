import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * External posts (README "Analytics", `source=external`): posts made on a platform outside Herald, found
 * by listing the account's posts, are kept as a published post with one target so collection reads them
 * like Herald's own.
 * - `post.is_external` / `target_metrics.is_external`: 1 for those (the posts list leaves them out;
 *   `source` on GET /v1/analytics picks them or Herald's).
 * - `account.external_synced_at`: the newest post time the last sync saw; the next lists from there.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('post')
    .addColumn('is_external', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('target_metrics')
    .addColumn('is_external', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('account').addColumn('external_synced_at', 'text').execute();
  // Matching a listed item against the account's targets (Herald's own and those imported before).
  await db.schema
    .createIndex('post_target_account_platform_post_idx')
    .on('post_target')
    .columns(['account_id', 'platform_post_id'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
