import type { AppContext } from '../../context.js';
import type { Executor } from '../../store/db.js';
import { findPublishedTarget, trackTarget } from '../../store/analytics.js';

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
  if (!t?.published_at) return;
  const first = ctx.config.analyticsScheduleMs[0]!;
  await trackTarget(tx, {
    ...t,
    published_at: t.published_at,
    next_collect_at: new Date(new Date(t.published_at).getTime() + first).toISOString(),
    ...uncollected(),
  });
}
