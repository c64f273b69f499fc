import { Type } from '@sinclair/typebox';
import {
  dailyFollowers,
  followerSteps,
  missingScopes,
  SCOPE_MISSING_ERRORS,
  scopeMissing,
  type UnavailableReason,
} from '../account-insights.js';
import { insightsRange, metricList } from '../insights-range.js';
import { InsightsQuery, InsightsResponse } from '../insights-response.js';
import { platformTool } from '../tools.js';
import { PlatformError } from '../types.js';
import { token, ttRequest } from './api.js';
import type { TikTokAdapter } from './index.js';

/*
 * GET /v1/analytics/tiktok/account-insights: the creator's counters, read live from the Display API's
 * `GET /v2/user/info/` (follower_count, following_count, likes_count, video_count, scope user.info.stats:
 * https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info). TikTok keeps no history of them, nor
 * any account-level reach, views or unfollows; the daily series and the follower flow come from the
 * follower counts Herald's daily account read recorded (the hosted API joins its own snapshots the same
 * way). Herald records only the follower count, so the other counters' series is today's reading alone.
 * Analytics add-on; an account without user.info.stats is a 412 with a reconnect URL.
 */

const STATS_SCOPE = 'user.info.stats';
const COUNTERS = ['follower_count', 'following_count', 'likes_count', 'video_count'] as const;
const FLOW = ['followers_gained', 'followers_lost'] as const;
const METRICS = [...COUNTERS, ...FLOW];
const DEFAULT_METRICS = ['follower_count', 'likes_count', 'video_count', 'followers_gained', 'followers_lost'];

type Series = { date: string; value: number }[];

const accountInsights = platformTool<TikTokAdapter>()({
  method: 'GET',
  path: '/analytics/tiktok/account-insights',
  account: 'query',
  addon: 'analytics',
  tags: ['Analytics'],
  summary: 'Get TikTok account-level insights',
  querystring: Type.Object(InsightsQuery),
  response: InsightsResponse,
  errors: SCOPE_MISSING_ERRORS,
  async handler({ adapter, account, query, io, reconnectUrl, followerHistory }) {
    const acc = account!;
    const metrics = metricList(query.metrics, METRICS, DEFAULT_METRICS);
    const metricType = query.metricType ?? 'total_value';
    const now = io.now();
    const range = insightsRange(query, now, 89);
    if (missingScopes(acc.scopes, [STATS_SCOPE]).length)
      throw await scopeMissing('TikTok', [STATS_SCOPE], reconnectUrl);

    let user: Record<string, unknown>;
    try {
      const res = await ttRequest(io, {
        method: 'GET',
        url: `${adapter.options.apiUrl}/v2/user/info/?fields=open_id,${COUNTERS.join(',')}`,
        token: token(acc),
      });
      user = (res.body?.data?.user ?? {}) as Record<string, unknown>;
    } catch (error) {
      // The grant lost user.info.stats since it was stored: TikTok names the scope it misses.
      if (
        error instanceof PlatformError &&
        (error.platformCode === 'scope_permission_missed' || error.platformCode === 'scope_not_authorized')
      )
        throw await scopeMissing('TikTok', [STATS_SCOPE], reconnectUrl);
      throw error;
    }
    const live = (m: string) => (typeof user[m] === 'number' ? (user[m] as number) : null);

    const today = now.toISOString().slice(0, 10);
    const history = await followerHistory(range.since, range.until);
    const followers = dailyFollowers(history, live('follower_count'), range, today);
    const steps = followerSteps(followers);
    const out: Record<string, { total: number; values?: Series }> = {};
    const unavailable: { metric: string; reason: UnavailableReason; message: string }[] = [];
    const none = (metric: string, message: string) => unavailable.push({ metric, reason: 'no_data', message });

    for (const m of metrics) {
      if (m === 'followers_gained' || m === 'followers_lost') {
        if (!steps) {
          none(m, 'Herald has fewer than two follower counts of this account in the range.');
          continue;
        }
        const values = m === 'followers_gained' ? steps.gained : steps.lost;
        const total = values.reduce((sum, v) => sum + v.value, 0);
        out[m] = metricType === 'time_series' ? { total, values } : { total };
        continue;
      }
      const value = live(m);
      if (value === null) {
        none(m, 'TikTok did not report this counter.');
        continue;
      }
      if (metricType === 'total_value') {
        out[m] = { total: value };
        continue;
      }
      const values = m === 'follower_count' ? followers : today <= range.until ? [{ date: today, value }] : [];
      if (!values.length) {
        none(m, 'Herald keeps no daily history of this counter in the range.');
        continue;
      }
      out[m] = { total: values[values.length - 1]!.value, values };
    }
    return {
      body: {
        success: true,
        accountId: acc.accountId,
        platform: 'tiktok',
        dateRange: range,
        metricType,
        metrics: out,
        ...(unavailable.length ? { unavailableMetrics: unavailable } : {}),
        dataDelay: 'Counters are read live; the daily series comes from the follower count Herald records once a day.',
      },
    };
  },
});

export const TIKTOK_INSIGHTS_TOOLS = [accountInsights];
