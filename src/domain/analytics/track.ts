import type { AppContext } from '../../context.js';
import type { Executor } from '../../store/db.js';
import { findPublishedTarget, trackTargets, type TargetMetricsRow } from '../../store/analytics.js';
import type { TargetRow } from '../../store/publishing.js';

/** A tracked target's metric columns before its first read (nothing collected, no age reached). */
export function uncollected() {
  return {
    collected_at: null,
    impressions: 0,
    reach: 0,
    likes: 0,
    comments: 0,
    shares: 0,
    saves: 0,
    clicks: 0,
    views: 0,
    engagement: 0,
    reached_6h: null,
    reached_12h: null,
    reached_1d: null,
    reached_2d: null,
    reached_7d: null,
    reached_30d: null,
  } as const;
}

/**
 * A target was just published: from now on its metrics are read at the ANALYTICS_SCHEDULE's ages. Runs
 * in the publish's own transaction, so no published target is ever missed by collection.
 */
export async function trackPublishedTarget(ctx: AppContext, tx: Executor, targetId: string): Promise<void> {
  const t = await findPublishedTarget(tx, targetId);
  if (t)
    await trackTargets(
      tx,
      [trackedRow(ctx, t)].filter((r) => r !== null),
    );
}

/** `trackPublishedTarget` for targets the caller read after publishing them (one insert for all). */
export async function trackPublishedTargets(ctx: AppContext, tx: Executor, targets: TargetRow[]): Promise<void> {
  const rows = targets.filter((t) => t.status === 'published').map((t) => trackedRow(ctx, t));
  await trackTargets(
    tx,
    rows.filter((r) => r !== null),
  );
}

type Published = Pick<
  TargetRow,
  'target_id' | 'tenant_id' | 'post_id' | 'account_id' | 'profile_id' | 'platform' | 'published_at'
>;

function trackedRow(ctx: AppContext, t: Published): TargetMetricsRow | null {
  if (!t.published_at) return null;
  const first = ctx.config.analyticsScheduleMs[0]!;
  return {
    target_id: t.target_id,
    tenant_id: t.tenant_id,
    post_id: t.post_id,
    account_id: t.account_id,
    profile_id: t.profile_id,
    platform: t.platform,
    published_at: t.published_at,
    next_collect_at: new Date(new Date(t.published_at).getTime() + first).toISOString(),
    ...uncollected(),
  };
}
