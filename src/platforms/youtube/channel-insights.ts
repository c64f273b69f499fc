import { Type } from '@sinclair/typebox';
import { insightsRange, metricList } from '../insights-range.js';
import { InsightsQuery, InsightsResponse } from '../insights-response.js';
import { platformTool } from '../tools.js';
import { ScopeMissing, withAnalyticsScope } from './analytics-scope.js';
import type { YouTubeAdapter } from './index.js';
import { addDays, daysBetween, finalizedDay } from './report-dates.js';

/*
 * GET /v1/analytics/youtube/channel-insights: the channel's totals (or daily series) from the YouTube
 * Analytics API, in the shape of the Instagram account insights. One `reports.query` by day
 * (`dimensions=day`, no filter: the whole channel), the totals added up here; the average view duration
 * is the mean of the days weighted by their views. followers_gained and followers_lost come from Herald's
 * own daily follower reads, as the hosted API synthesizes them.
 */

/** The metrics YouTube reports here (impressions and click-through rate are not in the Analytics API). */
const LIVE = ['views', 'estimatedMinutesWatched', 'averageViewDuration', 'subscribersGained', 'subscribersLost'];
const FROM_SNAPSHOTS = ['followers_gained', 'followers_lost'];
const DEFAULT_METRICS = ['views', 'estimatedMinutesWatched', 'subscribersGained', 'subscribersLost'];
const MAX_DAYS = 89;
const DELAY =
  'YouTube Analytics reports with a 2-3 day delay: days after the newest finalized one (3 days ago) read as zero.';

type Series = { date: string; value: number }[];

/** followers_gained / followers_lost per day: the change from the previous day's read (0 for a day without two reads). */
function followerChanges(history: { date: string; value: number }[], days: string[]) {
  const byDay = new Map(history.map((h) => [h.date, h.value]));
  const gained: Series = [];
  const lost: Series = [];
  for (const d of days) {
    const today = byDay.get(d);
    const before = byDay.get(addDays(d, -1));
    const change = today !== undefined && before !== undefined ? today - before : 0;
    gained.push({ date: d, value: Math.max(0, change) });
    lost.push({ date: d, value: Math.max(0, -change) });
  }
  return { followers_gained: gained, followers_lost: lost, reads: history.length };
}

export const channelInsights = platformTool<YouTubeAdapter>()({
  method: 'GET',
  path: '/analytics/youtube/channel-insights',
  account: 'query',
  addon: 'analytics',
  tags: ['Analytics'],
  summary: 'Get YouTube channel insights',
  querystring: Type.Object(InsightsQuery),
  response: InsightsResponse,
  errors: { 412: ScopeMissing },
  async handler({ adapter, account, query, io, reconnectUrl, followerHistory }) {
    const metrics = metricList(query.metrics, [...LIVE, ...FROM_SNAPSHOTS], DEFAULT_METRICS);
    const metricType = query.metricType ?? 'total_value';
    const range = insightsRange(query, io.now(), MAX_DAYS);
    const days = daysBetween(range.since, range.until);
    // NOTE: the fetch ends at the newest finalized day; the days after it read as zero (the hosted API's clamp).
    const fetchEnd = [range.until, finalizedDay(io.now())].sort()[0]!;
    const live = metrics.filter((m) => LIVE.includes(m));
    const rows = await withAnalyticsScope(account!, reconnectUrl, 'YouTube channel analytics', async () =>
      live.length && range.since <= fetchEnd
        ? adapter.report(
            account!,
            // views too: the average view duration is weighted by them.
            {
              startDate: range.since,
              endDate: fetchEnd,
              metrics: [...new Set(['views', ...live])],
              dimensions: ['day'],
            },
            io,
          )
        : [],
    );
    const byDay = new Map(rows.map((r) => [String(r.day), r]));
    const series = (m: string): Series => days.map((d) => ({ date: d, value: Number(byDay.get(d)?.[m] ?? 0) }));
    const out: Record<string, { total: number; values?: Series }> = {};
    const unavailable: { metric: string; reason: string; message: string }[] = [];
    const put = (m: string, values: Series, total: number) => {
      out[m] = metricType === 'time_series' ? { total, values } : { total };
    };
    for (const m of live) {
      const values = series(m);
      if (m === 'averageViewDuration') {
        const views = series('views');
        const watched = views.reduce((s, v) => s + v.value, 0);
        const weighted = values.reduce((s, v, i) => s + v.value * views[i]!.value, 0);
        put(m, values, watched ? Math.round((weighted / watched) * 100) / 100 : 0);
      } else
        put(
          m,
          values,
          values.reduce((s, v) => s + v.value, 0),
        );
    }
    const snapshots = metrics.filter((m) => FROM_SNAPSHOTS.includes(m));
    if (snapshots.length) {
      const changes = followerChanges(await followerHistory(addDays(range.since, -1), range.until), days);
      for (const m of snapshots) {
        if (changes.reads < 2) {
          unavailable.push({
            metric: m,
            reason: 'no_data',
            message: 'Herald has fewer than two daily subscriber reads of this channel in the range.',
          });
          continue;
        }
        const values = changes[m as 'followers_gained' | 'followers_lost'];
        put(
          m,
          values,
          values.reduce((s, v) => s + v.value, 0),
        );
      }
    }
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        platform: 'youtube',
        dateRange: range,
        metricType,
        metrics: out,
        ...(unavailable.length ? { unavailableMetrics: unavailable } : {}),
        dataDelay: DELAY,
      },
    };
  },
});
