import { DateTime } from 'luxon';
import type { AppContext } from '../../context.js';
import { dailyTotals, decaySums, engagementBySlot, QUARTER_MS } from '../../store/analytics-read.js';
import type { MetricCounters } from '../../store/schema.js';
import type { Principal } from '../principal.js';
import { DECAY_BUCKETS } from './metrics.js';
import { assertAnalyticsAddon, assertRange, metricsScope, parseDateParam, parseTimeZone } from './scope.js';

/*
 * The hosted API's aggregate analytics (README "Analytics" defines each figure). Each reads one grouped
 * query over the tenant's per-quarter-hour sums (metrics_rollup, store/analytics-read.ts); the grouping
 * left to code is over a few hundred rows at most (best-time: one per quarter-hour of history).
 */

const DAY_MS = 86_400_000;
const COUNTERS = ['impressions', 'reach', 'likes', 'comments', 'shares', 'saves', 'clicks', 'views'] as const;
type Filters = { platform?: string; profileId?: string; source?: string };

/** GET /v1/analytics/daily-metrics: per publishing day, posts, their platforms and summed metrics (default: the last 180 days). */
export async function getDailyMetrics(
  ctx: AppContext,
  caller: Principal,
  q: Filters & { fromDate?: string; toDate?: string },
) {
  assertAnalyticsAddon(caller);
  const now = ctx.clock.now();
  const from = parseDateParam(q.fromDate, 'fromDate') ?? new Date(now.getTime() - 180 * DAY_MS);
  const to = parseDateParam(q.toDate, 'toDate', true) ?? now;
  assertRange(from, to);
  const rows = await dailyTotals(ctx.db.kysely, metricsScope(caller, { ...q, from, to }));
  const days = new Map<
    string,
    { date: string; postCount: number; platforms: Record<string, number>; metrics: MetricCounters }
  >();
  const platforms = new Map<string, MetricCounters & { postCount: number }>();
  for (const r of rows) {
    const day = days.get(r.day) ?? { date: r.day, postCount: 0, platforms: {}, metrics: zero() };
    const plat = platforms.get(r.platform) ?? { postCount: 0, ...zero() };
    const posts = Number(r.posts);
    day.postCount += posts;
    day.platforms[r.platform] = (day.platforms[r.platform] ?? 0) + posts;
    plat.postCount += posts;
    for (const c of COUNTERS) {
      day.metrics[c] += Number(r[c] ?? 0);
      plat[c] += Number(r[c] ?? 0);
    }
    days.set(r.day, day);
    platforms.set(r.platform, plat);
  }
  return {
    dailyData: [...days.values()],
    platformBreakdown: [...platforms.entries()]
      .map(([platform, v]) => ({ platform, ...v }))
      .sort((a, b) => b.postCount - a.postCount),
  };
}

/**
 * GET /v1/analytics/best-time: weekday x hour slots of the caller's time zone (`timezone`, default UTC),
 * ranked by the average engagement of the posts published in them (posts read at least once).
 */
export async function getBestTime(ctx: AppContext, caller: Principal, q: Filters & { timezone?: string }) {
  assertAnalyticsAddon(caller);
  const zone = parseTimeZone(q.timezone);
  const rows = await engagementBySlot(ctx.db.kysely, metricsScope(caller, q));
  // Index: weekday (Monday 0) x 24 + hour, local.
  const totals = Array.from({ length: 7 * 24 }, () => ({ posts: 0, engagement: 0 }));
  const offsetAt = zoneOffsets(zone);
  for (const r of rows) {
    // The quarter's start stands for the posts in it: every offset in use is a multiple of 15 minutes.
    const ms = Date.parse(r.slot);
    const start = ms - (ms % QUARTER_MS);
    const local = new Date(start + offsetAt(start) * 60_000);
    const t = totals[((local.getUTCDay() + 6) % 7) * 24 + local.getUTCHours()]!;
    t.posts += Number(r.posts);
    t.engagement += Number(r.engagement ?? 0);
  }
  return {
    timezone: zone,
    slots: totals
      .flatMap((t, i) =>
        t.posts
          ? [
              {
                day_of_week: Math.floor(i / 24),
                hour: i % 24,
                avg_engagement: round1(t.engagement / t.posts),
                post_count: t.posts,
              },
            ]
          : [],
      )
      .sort(
        (a, b) =>
          b.avg_engagement - a.avg_engagement ||
          b.post_count - a.post_count ||
          a.day_of_week - b.day_of_week ||
          a.hour - b.hour,
      ),
  };
}

/**
 * The zone's UTC offset (minutes) at an instant (ms). Asked once per UTC day, and per instant only on a
 * day the offset changes: a history of 100,000 posts has ~10,000 quarter-hours, and asking the time zone
 * database for each took most of best-time's answer (README "Benchmarks").
 */
function zoneOffsets(zone: string): (ms: number) => number {
  const days = new Map<number, number | null>();
  return (ms) => {
    const day = Math.floor(ms / DAY_MS);
    let offset = days.get(day);
    if (offset === undefined) {
      const first = DateTime.fromMillis(day * DAY_MS, { zone }).offset;
      const last = DateTime.fromMillis((day + 1) * DAY_MS - 1000, { zone }).offset;
      offset = first === last ? first : null;
      days.set(day, offset);
    }
    return offset ?? DateTime.fromMillis(ms, { zone }).offset;
  };
}

/**
 * GET /v1/analytics/content-decay: per age bucket after publishing, the average share of a post's final
 * (latest) engagement that it gained within that bucket, over the posts old enough to have reached it.
 */
export async function getContentDecay(ctx: AppContext, caller: Principal, q: Filters) {
  assertAnalyticsAddon(caller);
  const now = ctx.clock.now().getTime();
  const sums = await decaySums(
    ctx.db.kysely,
    metricsScope(caller, q),
    DECAY_BUCKETS.map((b) => new Date(now - b.start).toISOString()),
  );
  return {
    buckets: DECAY_BUCKETS.map((b, i) => {
      const n = Number(sums?.[`n${i}`] ?? 0);
      const s = Number(sums?.[`s${i}`] ?? 0);
      return { bucket_order: i, bucket_label: b.label, avg_pct_of_final: n ? round1((s / n) * 100) : 0, post_count: n };
    }),
  };
}

/**
 * GET /v1/analytics/posting-frequency: per platform, the calendar weeks (Monday to Sunday, UTC) grouped
 * by how many posts were published in them, with the weeks' average engagement rate and engagement per post.
 */
export async function getPostingFrequency(ctx: AppContext, caller: Principal, q: Filters) {
  assertAnalyticsAddon(caller);
  const rows = await dailyTotals(ctx.db.kysely, metricsScope(caller, q));
  const weeks = new Map<string, { platform: string; posts: number; engagement: number; base: number }>();
  for (const r of rows) {
    const d = new Date(`${r.day}T00:00:00Z`);
    const monday = new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * DAY_MS).toISOString().slice(0, 10);
    const key = `${r.platform}|${monday}`;
    const w = weeks.get(key) ?? { platform: r.platform, posts: 0, engagement: 0, base: 0 };
    w.posts += Number(r.posts);
    w.engagement += Number(r.engagement ?? 0);
    w.base += Number(r.base ?? 0);
    weeks.set(key, w);
  }
  const groups = new Map<
    string,
    { platform: string; posts_per_week: number; rates: number; perPost: number; weeks: number }
  >();
  for (const w of weeks.values()) {
    const key = `${w.platform}|${w.posts}`;
    const g = groups.get(key) ?? { platform: w.platform, posts_per_week: w.posts, rates: 0, perPost: 0, weeks: 0 };
    g.rates += w.base ? (w.engagement / w.base) * 100 : 0;
    g.perPost += w.engagement / w.posts;
    g.weeks += 1;
    groups.set(key, g);
  }
  return {
    frequency: [...groups.values()]
      .map((g) => ({
        platform: g.platform,
        posts_per_week: g.posts_per_week,
        avg_engagement_rate: round1(g.rates / g.weeks),
        avg_engagement: round1(g.perPost / g.weeks),
        weeks_count: g.weeks,
      }))
      .sort((a, b) => a.platform.localeCompare(b.platform) || a.posts_per_week - b.posts_per_week),
  };
}

const zero = (): MetricCounters => ({
  impressions: 0,
  reach: 0,
  likes: 0,
  comments: 0,
  shares: 0,
  saves: 0,
  clicks: 0,
  views: 0,
});
const round1 = (n: number) => Math.round(n * 10) / 10;
