import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * Indexes `npm run bench analytics` showed missing (100,000 tracked targets, README "Benchmarks"):
 * - the analytics list pages in index order: (tenant_id, published_at | engagement, target_id) cover the
 *   list's sort and its tie-break, so a page is read from the index alone and joined after (a page deep in
 *   the list walked and joined every row before it, then sorted the ties);
 * - `lastSync` (the latest read of the tenant's targets) is one index probe instead of a scan;
 * - collection: one account's due reads (account_id, next_collect_at) instead of walking every due read
 *   of every account, and the scan for accounts with due reads from the index alone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('target_metrics_tenant_published_idx').execute();
  await db.schema.dropIndex('target_metrics_tenant_engagement_idx').execute();
  await db.schema.dropIndex('target_metrics_due_idx').execute();
  await db.schema
    .createIndex('target_metrics_tenant_published_idx')
    .on('target_metrics')
    .columns(['tenant_id', 'published_at', 'target_id'])
    .execute();
  await db.schema
    .createIndex('target_metrics_tenant_engagement_idx')
    .on('target_metrics')
    .columns(['tenant_id', 'engagement', 'target_id'])
    .execute();
  await db.schema
    .createIndex('target_metrics_tenant_collected_idx')
    .on('target_metrics')
    .columns(['tenant_id', 'collected_at'])
    .execute();
  await db.schema
    .createIndex('target_metrics_due_idx')
    .on('target_metrics')
    .columns(['next_collect_at', 'account_id'])
    .execute();
  await db.schema
    .createIndex('target_metrics_account_due_idx')
    .on('target_metrics')
    .columns(['account_id', 'next_collect_at'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
