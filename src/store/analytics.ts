import type { Executor } from './db.js';
import type { MetricCounters, TargetMetricsTable } from './schema.js';

/*
 * The analytics write side: which targets and accounts are due a read, and recording what was read.
 * The read side (lists, aggregates) is in analytics-read.ts.
 */

export type TargetMetricsRow = TargetMetricsTable;

/** Starts tracking a target that was just published (same transaction as the publish). No-op if tracked. */
export async function trackTargets(db: Executor, rows: TargetMetricsRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('target_metrics')
    .values(rows)
    .onConflict((oc) => oc.column('target_id').doNothing())
    .execute();
}

/** Accounts with at least one target due a read (target_metrics_due_idx). */
export async function listAccountsWithDueTargets(db: Executor, nowIso: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('target_metrics')
    .select('account_id')
    .distinct()
    .where('next_collect_at', '<=', nowIso)
    .limit(limit)
    .execute();
  return rows.map((r) => r.account_id);
}

/** Active accounts whose daily account read is due (never read yet, or the time came). */
export async function listAccountsDueMetrics(db: Executor, nowIso: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('account')
    .select('account_id')
    .where('is_active', '=', 1)
    .where((eb) => eb.or([eb('metrics_next_at', 'is', null), eb('metrics_next_at', '<=', nowIso)]))
    .limit(limit)
    .execute();
  return rows.map((r) => r.account_id);
}

export interface DueTarget {
  target_id: string;
  post_id: string;
  /** 1: the target of an external post (a post made on the platform outside Herald). */
  is_external: number;
  published_at: string;
  platform_post_id: string | null;
  status: string;
  reached: Pick<
    TargetMetricsRow,
    'reached_6h' | 'reached_12h' | 'reached_1d' | 'reached_2d' | 'reached_7d' | 'reached_30d'
  >;
}

/** One account's targets due a read, oldest due first, with the target's current status and platform id. */
export async function listDueTargets(
  db: Executor,
  accountId: string,
  nowIso: string,
  limit: number,
): Promise<DueTarget[]> {
  const rows = await db
    .selectFrom('target_metrics as m')
    .innerJoin('post_target as t', 't.target_id', 'm.target_id')
    .select(['m.target_id', 'm.post_id', 'm.is_external', 'm.published_at', 't.platform_post_id', 't.status'])
    .select(['m.reached_6h', 'm.reached_12h', 'm.reached_1d', 'm.reached_2d', 'm.reached_7d', 'm.reached_30d'])
    .where('m.account_id', '=', accountId)
    .where('m.next_collect_at', '<=', nowIso)
    .orderBy('m.next_collect_at')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    target_id: r.target_id,
    post_id: r.post_id,
    is_external: r.is_external ?? 0,
    published_at: r.published_at,
    platform_post_id: r.platform_post_id,
    status: r.status,
    reached: {
      reached_6h: r.reached_6h,
      reached_12h: r.reached_12h,
      reached_1d: r.reached_1d,
      reached_2d: r.reached_2d,
      reached_7d: r.reached_7d,
      reached_30d: r.reached_30d,
    },
  }));
}

/** Records one read: the snapshot, and the target's latest values, engagement marks and next read. */
export async function recordTargetMetrics(
  db: Executor,
  r: {
    targetId: string;
    tenantId: string;
    collectedAt: string;
    metrics: MetricCounters;
    patch: Partial<TargetMetricsRow>;
  },
): Promise<void> {
  await db
    .insertInto('metric_snapshot')
    .values({ target_id: r.targetId, tenant_id: r.tenantId, collected_at: r.collectedAt, ...r.metrics })
    .onConflict((oc) => oc.columns(['target_id', 'collected_at']).doUpdateSet(r.metrics))
    .execute();
  await db
    .updateTable('target_metrics')
    .set({ ...r.metrics, collected_at: r.collectedAt, ...r.patch })
    .where('target_id', '=', r.targetId)
    .execute();
}

/** Moves targets' next read (null: the schedule is over, or there is nothing to read). */
export async function setNextCollect(db: Executor, targetIds: string[], next: string | null): Promise<void> {
  if (!targetIds.length) return;
  await db.updateTable('target_metrics').set({ next_collect_at: next }).where('target_id', 'in', targetIds).execute();
}

/** Records an account read (snapshot + latest on the account) and plans the next one. */
export async function recordAccountMetrics(
  db: Executor,
  r: { accountId: string; tenantId: string; collectedAt: string; followers: number | null; subscribers: number | null },
): Promise<void> {
  await db
    .insertInto('account_metric_snapshot')
    .values({
      account_id: r.accountId,
      tenant_id: r.tenantId,
      collected_at: r.collectedAt,
      followers: r.followers,
      subscribers: r.subscribers,
    })
    .onConflict((oc) =>
      oc.columns(['account_id', 'collected_at']).doUpdateSet({ followers: r.followers, subscribers: r.subscribers }),
    )
    .execute();
  const followers = r.followers ?? r.subscribers;
  if (followers !== null) {
    await db
      .updateTable('account')
      .set({ followers_count: followers, followers_updated_at: r.collectedAt })
      .where('account_id', '=', r.accountId)
      .execute();
  }
}

export async function setAccountMetricsNext(db: Executor, accountId: string, next: string): Promise<void> {
  await db.updateTable('account').set({ metrics_next_at: next }).where('account_id', '=', accountId).execute();
}

/** A published target's identity columns, for tracking it. */
export async function findPublishedTarget(db: Executor, targetId: string) {
  return db
    .selectFrom('post_target')
    .select(['target_id', 'tenant_id', 'post_id', 'account_id', 'profile_id', 'platform', 'published_at'])
    .where('target_id', '=', targetId)
    .where('status', '=', 'published')
    .executeTakeFirst();
}
