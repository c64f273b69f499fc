import type { CreateTableBuilder, Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * The analytics add-on (README "Analytics").
 * - `target_metrics`: one row per published target: its latest metrics (what a post's `analytics` shows,
 *   read without touching the time series), when its next read is due on the ANALYTICS_SCHEDULE, and the
 *   engagement it had reached by the end of each content-decay bucket. Indexed for the tenant's lists.
 * - `metric_snapshot`: every read of a target, the time series behind post-timeline and content decay.
 * - `account_metric_snapshot`: followers (and subscribers) read daily per account; the latest is also
 *   kept on the account row with the time its next read is due.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const counters = <T extends string, C extends string>(t: CreateTableBuilder<T, C>) =>
    t
      .addColumn('impressions', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('reach', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('likes', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('comments', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('shares', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('saves', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('clicks', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('views', 'bigint', (c) => c.notNull().defaultTo(0));

  await counters(
    db.schema
      .createTable('target_metrics')
      .addColumn('target_id', 'text', (c) => c.primaryKey().references('post_target.target_id').onDelete('cascade'))
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('post_id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('profile_id', 'text', (c) => c.notNull())
      .addColumn('platform', 'text', (c) => c.notNull())
      .addColumn('published_at', 'text', (c) => c.notNull())
      // Null once the schedule is done (or the platform reports no metrics).
      .addColumn('next_collect_at', 'text')
      // Null until the first read: `lastUpdated`.
      .addColumn('collected_at', 'text'),
  )
    // likes + comments + shares + saves of the latest read (sortBy=engagement, best-time).
    .addColumn('engagement', 'bigint', (c) => c.notNull().defaultTo(0))
    // Engagement of the last read at or before 6h, 12h, 1d, 2d, 7d, 30d after publishing (content decay).
    .addColumn('reached_6h', 'bigint')
    .addColumn('reached_12h', 'bigint')
    .addColumn('reached_1d', 'bigint')
    .addColumn('reached_2d', 'bigint')
    .addColumn('reached_7d', 'bigint')
    .addColumn('reached_30d', 'bigint')
    .execute();
  await db.schema.createIndex('target_metrics_due_idx').on('target_metrics').column('next_collect_at').execute();
  await db.schema
    .createIndex('target_metrics_tenant_published_idx')
    .on('target_metrics')
    .columns(['tenant_id', 'published_at'])
    .execute();
  await db.schema
    .createIndex('target_metrics_tenant_engagement_idx')
    .on('target_metrics')
    .columns(['tenant_id', 'engagement'])
    .execute();
  await db.schema.createIndex('target_metrics_post_idx').on('target_metrics').column('post_id').execute();

  await counters(
    db.schema
      .createTable('metric_snapshot')
      .addColumn('target_id', 'text', (c) => c.notNull().references('post_target.target_id').onDelete('cascade'))
      .addColumn('collected_at', 'text', (c) => c.notNull())
      .addColumn('tenant_id', 'text', (c) => c.notNull()),
  )
    .addPrimaryKeyConstraint('metric_snapshot_pk', ['target_id', 'collected_at'])
    .execute();

  await db.schema
    .createTable('account_metric_snapshot')
    .addColumn('account_id', 'text', (c) => c.notNull().references('account.account_id').onDelete('cascade'))
    .addColumn('collected_at', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('followers', 'bigint')
    .addColumn('subscribers', 'bigint')
    .addPrimaryKeyConstraint('account_metric_snapshot_pk', ['account_id', 'collected_at'])
    .execute();

  await db.schema.alterTable('account').addColumn('followers_count', 'bigint').execute();
  await db.schema.alterTable('account').addColumn('followers_updated_at', 'text').execute();
  await db.schema.alterTable('account').addColumn('metrics_next_at', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
