import { sql, type SelectQueryBuilder } from 'kysely';
import type { Executor } from './db.js';
import type { Database } from './schema.js';

/*
 * The analytics read side. Every query starts from target_metrics with the tenant (and the caller's
 * profiles) first, on the (tenant_id, published_at) or (tenant_id, engagement) index; aggregates group in
 * SQL and only small grouped results come back.
 */

export interface MetricsScope {
  tenantId: string;
  /** null: every profile of the tenant. */
  profileIds: string[] | null;
  platform?: string;
  profileId?: string;
  fromIso?: string;
  toIso?: string;
  /** `late`: Herald's own posts only; `external`: those synced from the platform; else both. */
  source?: 'all' | 'late' | 'external';
}

type MetricsQuery = SelectQueryBuilder<Database, 'target_metrics', object>;

function scoped(db: Executor, s: MetricsScope): MetricsQuery {
  let q = db.selectFrom('target_metrics').where('target_metrics.tenant_id', '=', s.tenantId) as MetricsQuery;
  if (s.profileIds) q = q.where('target_metrics.profile_id', 'in', s.profileIds.length ? s.profileIds : ['']);
  if (s.profileId) q = q.where('target_metrics.profile_id', '=', s.profileId);
  if (s.platform) q = q.where('target_metrics.platform', '=', s.platform);
  if (s.fromIso) q = q.where('target_metrics.published_at', '>=', s.fromIso);
  if (s.toIso) q = q.where('target_metrics.published_at', '<=', s.toIso);
  if (s.source === 'late') q = q.where('target_metrics.is_external', '=', 0);
  if (s.source === 'external') q = q.where('target_metrics.is_external', '=', 1);
  return q;
}

const COUNTERS = ['impressions', 'reach', 'likes', 'comments', 'shares', 'saves', 'clicks', 'views'] as const;

/** One page of published targets with their latest metrics, the post and the account. */
export async function listTargetMetrics(
  db: Executor,
  s: MetricsScope,
  page: { sortBy: 'date' | 'engagement'; order: 'asc' | 'desc'; limit: number; offset: number },
) {
  const base = scoped(db, s);
  const { n } = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const sortColumn = page.sortBy === 'engagement' ? 'target_metrics.engagement' : 'target_metrics.published_at';
  // The page's ids first, from the (tenant_id, sort column, target_id) index alone; only those 50 rows
  // are joined. Joining first walked every row before a deep page through three joins.
  const pageIds = base
    .select('target_metrics.target_id')
    .orderBy(sortColumn, page.order)
    .orderBy('target_metrics.target_id', page.order)
    .limit(page.limit)
    .offset(page.offset);
  const rows = await db
    .selectFrom('target_metrics')
    .where('target_metrics.target_id', 'in', pageIds)
    .innerJoin('post', 'post.post_id', 'target_metrics.post_id')
    .innerJoin('post_target', 'post_target.target_id', 'target_metrics.target_id')
    .innerJoin('account', 'account.account_id', 'target_metrics.account_id')
    .selectAll('target_metrics')
    .select([
      'post.content',
      'post.scheduled_for',
      'post.status as post_status',
      'post.media_items',
      'post_target.status as target_status',
      'post_target.platform_post_id',
      'post_target.platform_post_url',
      'account.username',
      'account.followers_count',
      'account.followers_updated_at',
    ])
    .orderBy(sortColumn, page.order)
    .orderBy('target_metrics.target_id', page.order)
    .execute();
  return { total: Number(n), rows };
}

export type ListedTargetMetrics = Awaited<ReturnType<typeof listTargetMetrics>>['rows'][number];

/** The targets of one post (or one target), with their latest metrics and account. */
export async function targetMetricsOf(db: Executor, tenantId: string, by: { postId?: string; targetId?: string }) {
  let q = db
    .selectFrom('post_target')
    .leftJoin('target_metrics', 'target_metrics.target_id', 'post_target.target_id')
    .innerJoin('account', 'account.account_id', 'post_target.account_id')
    .where('post_target.tenant_id', '=', tenantId)
    .select([
      'post_target.target_id',
      'post_target.post_id',
      'post_target.profile_id',
      'post_target.platform',
      'post_target.status',
      'post_target.account_id',
      'post_target.platform_post_id',
      'post_target.platform_post_url',
      'post_target.published_at',
      'account.username',
      'account.followers_count',
      'account.followers_updated_at',
      'target_metrics.collected_at',
      ...COUNTERS.map((c) => `target_metrics.${c}` as const),
    ])
    .orderBy('post_target.position');
  if (by.postId) q = q.where('post_target.post_id', '=', by.postId);
  if (by.targetId) q = q.where('post_target.target_id', '=', by.targetId);
  return q.execute();
}

export type TargetWithMetrics = Awaited<ReturnType<typeof targetMetricsOf>>[number];

/** The target whose platform id is `platformPostId` (post-timeline accepts it). */
export async function findTargetByPlatformId(db: Executor, tenantId: string, platformPostId: string) {
  return db
    .selectFrom('post_target')
    .select(['target_id', 'post_id', 'profile_id'])
    .where('tenant_id', '=', tenantId)
    .where('platform_post_id', '=', platformPostId)
    .executeTakeFirst();
}

/** Posts of the tenant by status, for the overview. */
export async function countPostsByStatus(db: Executor, tenantId: string): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('post')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('tenant_id', '=', tenantId)
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/** The last time any of the tenant's targets was read. */
export async function lastSync(db: Executor, s: MetricsScope): Promise<string | null> {
  const row = await scoped(db, s)
    .select((eb) => eb.fn.max('target_metrics.collected_at').as('at'))
    .executeTakeFirst();
  return (row?.at as string | null | undefined) ?? null;
}

/** Per publishing day (UTC) and platform: targets and summed latest metrics. */
export async function dailyTotals(db: Executor, s: MetricsScope) {
  const day = sql<string>`substr(target_metrics.published_at, 1, 10)`;
  return scoped(db, s)
    .select([day.as('day'), 'target_metrics.platform', (eb) => eb.fn.countAll<number>().as('posts')])
    .select((eb) => COUNTERS.map((c) => eb.fn.sum<number>(`target_metrics.${c}`).as(c)))
    .select((eb) => eb.fn.sum<number>('target_metrics.engagement').as('engagement'))
    .select(sql<number>`sum(case when target_metrics.impressions > 0 then target_metrics.impressions when target_metrics.reach > 0 then target_metrics.reach else target_metrics.views end)`.as('base'))
    .groupBy([day, 'target_metrics.platform'])
    .orderBy(day)
    .execute();
}

/**
 * Per UTC hour and quarter of an hour of publishing: targets that have been read and their summed
 * engagement (best-time; the caller's time zone is applied to these small groups).
 */
export async function engagementByPublishQuarter(db: Executor, s: MetricsScope) {
  const hour = sql<string>`substr(target_metrics.published_at, 1, 13)`;
  const quarter = sql<number>`cast(substr(target_metrics.published_at, 15, 2) as integer) / 15`;
  return scoped(db, s)
    .where('target_metrics.collected_at', 'is not', null)
    .select([hour.as('hour'), quarter.as('quarter'), (eb) => eb.fn.countAll<number>().as('posts')])
    .select((eb) => eb.fn.sum<number>('target_metrics.engagement').as('engagement'))
    .groupBy([hour, quarter])
    .execute();
}

/**
 * Content decay: for each bucket, the posts old enough to have reached its start with some engagement,
 * and the sum of the share of final engagement each gained during the bucket.
 */
export async function decaySums(db: Executor, s: MetricsScope, buckets: { column: string; cutoffIso: string }[]) {
  let q = scoped(db, s).where('target_metrics.engagement', '>', 0) as SelectQueryBuilder<Database, 'target_metrics', any>;
  let prev = sql`0`;
  buckets.forEach((b, i) => {
    const col = sql`coalesce(${sql.ref(`target_metrics.${b.column}`)}, 0)`;
    const old = sql`target_metrics.published_at <= ${b.cutoffIso}`;
    q = q.select([
      sql<number>`sum(case when ${old} then 1 else 0 end)`.as(`n${i}`),
      sql<number>`sum(case when ${old} then (${col} - ${prev}) * 1.0 / target_metrics.engagement else 0 end)`.as(`s${i}`),
    ]);
    prev = col;
  });
  return (await q.executeTakeFirst()) as Record<string, number | null> | undefined;
}

/** The snapshots of some targets within a time range, oldest first. */
export async function snapshotsOf(db: Executor, targetIds: string[], fromIso: string, toIso: string) {
  if (!targetIds.length) return [];
  return db
    .selectFrom('metric_snapshot')
    .selectAll()
    .where('target_id', 'in', targetIds)
    .where('collected_at', '>=', fromIso)
    .where('collected_at', '<=', toIso)
    .orderBy('target_id')
    .orderBy('collected_at')
    .execute();
}

/** Follower snapshots of some accounts within a time range, oldest first. */
export async function accountSnapshotsOf(db: Executor, accountIds: string[], fromIso: string, toIso: string) {
  if (!accountIds.length) return [];
  return db
    .selectFrom('account_metric_snapshot')
    .selectAll()
    .where('account_id', 'in', accountIds)
    .where('collected_at', '>=', fromIso)
    .where('collected_at', '<=', toIso)
    .orderBy('account_id')
    .orderBy('collected_at')
    .execute();
}
