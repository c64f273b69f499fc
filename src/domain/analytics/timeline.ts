import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { findTargetByPlatformId, snapshotsOf, targetMetricsOf } from '../../store/analytics-read.js';
import { canSeeProfile, type Principal } from '../principal.js';
import { assertAnalyticsAddon, assertRange, parseDateParam } from './scope.js';

const DAY_MS = 86_400_000;
const COUNTERS = ['impressions', 'reach', 'likes', 'comments', 'shares', 'saves', 'clicks', 'views'] as const;

/**
 * GET /v1/analytics/post-timeline: per day (UTC) and target, the post's metrics as of that day's last
 * read (cumulative totals, as the platforms report them). `postId`: a Herald post id, a target id or a
 * platform post id. Default range: the last 90 days.
 */
export async function getPostTimeline(
  ctx: AppContext,
  caller: Principal,
  q: { postId: string; fromDate?: string; toDate?: string },
) {
  assertAnalyticsAddon(caller);
  const now = ctx.clock.now();
  const from = parseDateParam(q.fromDate, 'fromDate') ?? new Date(now.getTime() - 90 * DAY_MS);
  const to = parseDateParam(q.toDate, 'toDate', true) ?? now;
  assertRange(from, to);
  const db = ctx.db.kysely;
  let targets = await targetMetricsOf(db, caller.tenantId, { postId: q.postId });
  if (!targets.length) targets = await targetMetricsOf(db, caller.tenantId, { targetId: q.postId });
  if (!targets.length) {
    const byPlatformId = await findTargetByPlatformId(db, caller.tenantId, q.postId);
    if (byPlatformId) targets = await targetMetricsOf(db, caller.tenantId, { targetId: byPlatformId.target_id });
  }
  if (!targets.length || !targets.every((t) => canSeeProfile(caller, t.profile_id)))
    throw notFound('Post', 'post_not_found');
  const byId = new Map(targets.map((t) => [t.target_id, t]));
  const snapshots = await snapshotsOf(db, [...byId.keys()], from.toISOString(), to.toISOString());
  // Oldest first per target: the last snapshot of a day overwrites the earlier ones.
  const rows = new Map<
    string,
    { date: string; platform: string; platformPostId: string | null } & Record<(typeof COUNTERS)[number], number>
  >();
  for (const s of snapshots) {
    const t = byId.get(s.target_id)!;
    const date = s.collected_at.slice(0, 10);
    rows.set(`${s.target_id}|${date}`, {
      date,
      platform: t.platform,
      platformPostId: t.platform_post_id,
      impressions: Number(s.impressions),
      reach: Number(s.reach),
      likes: Number(s.likes),
      comments: Number(s.comments),
      shares: Number(s.shares),
      saves: Number(s.saves),
      clicks: Number(s.clicks),
      views: Number(s.views),
    });
  }
  const timeline = [...rows.values()].sort(
    (a, b) => a.date.localeCompare(b.date) || a.platform.localeCompare(b.platform),
  );
  return { postId: q.postId, timeline };
}
