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

/**
 * The scope's filters on `table`: target_metrics, whose time is published_at, or metrics_rollup, whose
 * time is its slot (the same columns otherwise).
 */
// any: Kysely's builders are invariant in their tables, so one filter over both tables' builders takes any.
function filtered<Q extends SelectQueryBuilder<Database, any, object>>(
  q: Q,
  table: 'target_metrics' | 'metrics_rollup',
  s: MetricsScope,
): Q {
  const col = (c: string) => sql.ref(`${table}.${c}`);
  const time = col(table === 'target_metrics' ? 'published_at' : 'slot');
  let out = q.where(col('tenant_id'), '=', s.tenantId);
  if (s.profileIds) out = out.where(col('profile_id'), 'in', s.profileIds.length ? s.profileIds : ['']);
  if (s.profileId) out = out.where(col('profile_id'), '=', s.profileId);
  if (s.platform) out = out.where(col('platform'), '=', s.platform);
  if (s.fromIso) out = out.where(time, '>=', s.fromIso);
  if (s.toIso) out = out.where(time, '<=', s.toIso);
  if (s.source === 'late') out = out.where(col('is_external'), '=', 0);
  if (s.source === 'external') out = out.where(col('is_external'), '=', 1);
  return out as Q;
}

function scoped(db: Executor, s: MetricsScope): MetricsQuery {
  return filtered(db.selectFrom('target_metrics') as MetricsQuery, 'target_metrics', s);
}

const COUNTERS = ['impressions', 'reach', 'likes', 'comments', 'shares', 'saves', 'clicks', 'views'] as const;

/** One page of published targets with their latest metrics, the post and the account. */
export async function listTargetMetrics(
  db: Executor,
  s: MetricsScope,
  page: { sortBy: 'date' | 'engagement'; order: 'asc' | 'desc'; limit: number; offset: number },
) {
  const base = scoped(db, s);
  // The count from the rollup: with a platform or a range, counting the targets scanned them all (15 ms
  // at 100,000; docs/performance.md).
  const { n } = await db
    .selectFrom(units(db, s).as('u'))
    .select(sql<number | null>`sum(u.posts)`.as('n'))
    .executeTakeFirstOrThrow();
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

/** Posts of the tenant by status, for the overview; with `profileIds`, only the posts a key of those profiles sees. */
export async function countPostsByStatus(
  db: Executor,
  tenantId: string,
  profileIds: string[] | null,
): Promise<Record<string, number>> {
  let q = db
    .selectFrom('post as p')
    .select(['p.status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('p.tenant_id', '=', tenantId);
  if (profileIds) {
    // As the post list counts for a scoped key: a post whose targets are all in its profiles.
    const scope = profileIds.length ? profileIds : ['-'];
    q = q.where(({ exists, not, selectFrom, and }) =>
      and([
        exists(selectFrom('post_target as t').select('t.target_id').whereRef('t.post_id', '=', 'p.post_id')),
        not(
          exists(
            selectFrom('post_target as t')
              .select('t.target_id')
              .whereRef('t.post_id', '=', 'p.post_id')
              .where('t.profile_id', 'not in', scope),
          ),
        ),
      ]),
    );
  }
  const rows = await q.groupBy('p.status').execute();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/** The last time any of the tenant's targets was read. */
export async function lastSync(db: Executor, s: MetricsScope): Promise<string | null> {
  const row = await scoped(db, s)
    .select((eb) => eb.fn.max('target_metrics.collected_at').as('at'))
    .executeTakeFirst();
  return (row?.at as string | null | undefined) ?? null;
}

/*
 * The aggregates read metrics_rollup (migration 0250): the tenant's sums per quarter-hour slot of
 * publishing, kept by triggers. A slot that a bound of the query falls inside (from, to, a content-decay
 * cutoff) is read from its targets instead, so every figure is the same as summing the targets: a slot
 * wholly on one side of every bound is wholly in or out.
 */

/** The rollup's slot: a quarter-hour of publishing (migration 0250). */
export const QUARTER_MS = 15 * 60_000;
const DECAYS = ['decay_0', 'decay_1', 'decay_2', 'decay_3', 'decay_4', 'decay_5', 'decay_6'] as const;
/** The columns behind each content-decay bucket, as DECAY_BUCKETS (domain/analytics/metrics.ts) lists them. */
const REACHED = [
  'reached_6h',
  'reached_12h',
  'reached_1d',
  'reached_2d',
  'reached_7d',
  'reached_30d',
  'engagement',
] as const;
const SUMMED = [
  'posts',
  'read_posts',
  'engaged_posts',
  ...COUNTERS,
  'engagement',
  'read_engagement',
  'base',
  ...DECAYS,
] as const;

const quarterOf = (iso: string) => new Date(Math.floor(Date.parse(iso) / QUARTER_MS) * QUARTER_MS).toISOString();

/** One target's share of each summed column, as the triggers of migration 0250 add it. */
function targetShares() {
  const m = (c: string) => sql.ref(`target_metrics.${c}`);
  const engaged = sql`${m('engagement')} > 0`;
  const read = sql`${m('collected_at')} is not null`;
  return [
    sql<string>`target_metrics.published_at`.as('slot'),
    sql.ref('target_metrics.platform').as('platform'),
    sql<number>`1`.as('posts'),
    sql<number>`case when ${read} then 1 else 0 end`.as('read_posts'),
    sql<number>`case when ${engaged} then 1 else 0 end`.as('engaged_posts'),
    ...COUNTERS.map((c) => m(c).as(c)),
    m('engagement').as('engagement'),
    sql<number>`case when ${read} then ${m('engagement')} else 0 end`.as('read_engagement'),
    sql<number>`case when ${m('impressions')} > 0 then ${m('impressions')} when ${m('reach')} > 0 then ${m('reach')} else ${m('views')} end`.as(
      'base',
    ),
    ...REACHED.map((col, i) => {
      const prev = i ? sql`coalesce(${m(REACHED[i - 1]!)}, 0)` : sql`0`;
      return sql<number>`case when ${engaged} then (coalesce(${m(col)}, 0) - ${prev}) * 1.0 / ${m('engagement')} else 0 end`.as(
        DECAYS[i]!,
      );
    }),
  ];
}

/**
 * The scope's sums as rows of (slot, platform, SUMMED...): the rollup's slots, and the targets of the
 * slots that `from`, `to` or one of `cuts` falls inside (each such target's slot is its published_at).
 */
function units(db: Executor, s: MetricsScope, cuts: string[] = []) {
  const edges = [...new Set([s.fromIso, s.toIso, ...cuts].filter((v): v is string => !!v).map(quarterOf))];
  let rolled = filtered(db.selectFrom('metrics_rollup'), 'metrics_rollup', s);
  if (edges.length) rolled = rolled.where('metrics_rollup.slot', 'not in', edges);
  const slots = rolled.select([
    'metrics_rollup.slot',
    'metrics_rollup.platform',
    ...SUMMED.map((c) => `metrics_rollup.${c}` as const),
  ]);
  if (!edges.length) return slots;
  // One range a slot (each a search of the (tenant_id, published_at) index; an OR of the ranges scanned
  // every target between the first and the last).
  let all = slots;
  for (const e of edges) {
    const targets = scoped(db, s)
      .where('target_metrics.published_at', '>=', e)
      .where('target_metrics.published_at', '<', new Date(Date.parse(e) + QUARTER_MS).toISOString())
      .select(targetShares());
    all = all.unionAll(targets as unknown as typeof slots);
  }
  return all;
}

const summed = (c: (typeof SUMMED)[number]) => sql<number>`sum(${sql.ref(`u.${c}`)})`.as(c);

/** Per publishing day (UTC) and platform: targets and summed latest metrics. */
export async function dailyTotals(db: Executor, s: MetricsScope) {
  const day = sql<string>`substr(u.slot, 1, 10)`;
  return db
    .selectFrom(units(db, s).as('u'))
    .select([
      day.as('day'),
      'u.platform',
      summed('posts'),
      ...COUNTERS.map(summed),
      summed('engagement'),
      summed('base'),
    ])
    .groupBy([day, 'u.platform'])
    .orderBy(day)
    .execute();
}

/**
 * Per quarter-hour of publishing (its start, UTC; a target of a bound's slot stands alone at its own
 * time): targets that have been read and their summed engagement (best-time applies the caller's time
 * zone to these small groups). Grouped by slot, the rollup's key order: no sort.
 */
export async function engagementBySlot(db: Executor, s: MetricsScope) {
  const rows = await db
    .selectFrom(units(db, s).as('u'))
    .select([
      'u.slot',
      sql<number>`sum(u.read_posts)`.as('posts'),
      sql<number>`sum(u.read_engagement)`.as('engagement'),
    ])
    .groupBy('u.slot')
    .execute();
  return rows.filter((r) => Number(r.posts) > 0);
}

/**
 * Content decay: for each bucket, the posts old enough to have reached its start with some engagement,
 * and the sum of the share of final engagement each gained during the bucket.
 */
export async function decaySums(db: Executor, s: MetricsScope, cutoffs: string[]) {
  const old = (i: number) => sql`u.slot <= ${cutoffs[i]}`;
  return (await db
    .selectFrom(units(db, s, cutoffs).as('u'))
    .select(
      cutoffs.flatMap((_, i) => [
        sql<number>`sum(case when ${old(i)} then u.engaged_posts else 0 end)`.as(`n${i}`),
        sql<number>`sum(case when ${old(i)} then u.${sql.raw(DECAYS[i]!)} else 0 end)`.as(`s${i}`),
      ]),
    )
    .executeTakeFirst()) as Record<string, number | null> | undefined;
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
