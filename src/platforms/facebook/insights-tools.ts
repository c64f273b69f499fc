import { Type } from '@sinclair/typebox';
import { invalid } from '../../errors.js';
import { dayBefore, followerSeries, insightsRange, metricList } from '../insights-range.js';
import { InsightsQuery, InsightsResponse, MoneyFields, UnavailableMetric } from '../insights-response.js';
import { platformTool } from '../tools.js';
import type { FacebookAdapter } from './index.js';
import { MONEY_METRICS, type FbMetricRead } from './insights.js';

/*
 * GET /v1/analytics/facebook/page-insights and /post-earnings (@zernio/node getFacebookPageInsights,
 * getFacebookPostEarnings): the Page's insights and a post's lifetime earnings read live from Graph
 * (insights.ts). Analytics add-on; the account is the `accountId` query parameter. followers_gained and
 * followers_lost have no Graph metric since Meta removed page_fan_adds/page_fan_removes (2025-11-15): they
 * are the rises and falls of Herald's daily follower reads, as the hosted API makes them from its own.
 */

/** Graph's live Page metrics the hosted API accepts (the post-November-2025 names). */
const LIVE = [
  'page_media_view',
  'page_views_total',
  'page_post_engagements',
  'page_video_views',
  'page_video_view_time',
  'page_follows',
];
const FROM_READS = ['followers_gained', 'followers_lost'];
const METRICS = [...LIVE, ...FROM_READS, ...MONEY_METRICS];
const DEFAULT_METRICS = [
  'page_media_view',
  'page_post_engagements',
  'page_follows',
  'followers_gained',
  'followers_lost',
];
/** A running count: its total over a range is its last value, not a sum. */
const COUNTS = ['page_follows'];
const DELAY =
  "Facebook updates most Page insights once a day; followers_gained and followers_lost follow Herald's daily follower reads.";

const sum = (values: { value: number }[]) => values.reduce((s, v) => s + v.value, 0);

const pageInsights = platformTool<FacebookAdapter>()({
  method: 'GET',
  path: '/analytics/facebook/page-insights',
  account: 'query',
  addon: 'analytics',
  tags: ['Analytics'],
  summary: 'Get Facebook Page insights',
  querystring: Type.Object(InsightsQuery),
  response: InsightsResponse,
  async handler({ adapter, account, query, io, followerHistory }) {
    const metrics = metricList(query.metrics, METRICS, DEFAULT_METRICS);
    const metricType = query.metricType ?? 'total_value';
    const range = insightsRange(query, io.now(), 89);
    const graphMetrics = metrics.filter((m) => !FROM_READS.includes(m));
    const read = graphMetrics.length
      ? await adapter.insights.page(account!, { metrics: graphMetrics, ...range }, io)
      : { metrics: {} as Record<string, FbMetricRead>, unavailable: [] };
    if (metrics.some((m) => FROM_READS.includes(m))) {
      const series = followerSeries(
        await followerHistory(dayBefore(range.since), range.until),
        range.since,
        range.until,
      );
      for (const m of FROM_READS)
        if (metrics.includes(m)) read.metrics[m] = { values: series[m as keyof typeof series] };
    }
    const out: Record<string, { total: number; values?: { date: string; value: number }[] } & Partial<FbMetricRead>> =
      {};
    for (const m of metrics) {
      const r = read.metrics[m];
      if (!r) continue;
      const money = r.unit !== undefined;
      out[m] = {
        total: COUNTS.includes(m) ? (r.values[r.values.length - 1]?.value ?? 0) : sum(r.values),
        // Money keeps its days on every metricType, so its sum can be reconciled with Meta's own export.
        ...(metricType === 'time_series' || money ? { values: r.values } : {}),
        ...(money ? { unit: r.unit, currency: r.currency ?? null } : {}),
      };
    }
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        platform: 'facebook',
        dateRange: range,
        metricType,
        metrics: out,
        ...(read.unavailable.length ? { unavailableMetrics: read.unavailable } : {}),
        dataDelay: DELAY,
      },
    };
  },
});

/** What a window would scope: refused, since a lifetime total read "for" a window would be summed wrongly. */
const WINDOW_PARAMS = ['since', 'until', 'fromDate', 'toDate', 'period', 'metricType'] as const;

const postEarnings = platformTool<FacebookAdapter>()({
  method: 'GET',
  path: '/analytics/facebook/post-earnings',
  account: 'query',
  addon: 'analytics',
  tags: ['Analytics'],
  summary: 'Get Facebook post monetization earnings',
  querystring: Type.Object({
    postId: Type.String({ minLength: 1, maxLength: 100 }),
    metrics: Type.Optional(Type.String({ maxLength: 200 })),
    // Declared so that they reach the handler, which refuses them with a 400 that says why.
    breakdown: Type.Optional(Type.String({ maxLength: 100 })),
    ...Object.fromEntries(WINDOW_PARAMS.map((p) => [p, Type.Optional(Type.String({ maxLength: 100 }))])),
  }),
  response: Type.Object({
    success: Type.Boolean(),
    accountId: Type.String(),
    postId: Type.String(),
    platform: Type.String(),
    period: Type.Literal('lifetime'),
    metrics: Type.Record(Type.String(), Type.Object({ total: Type.Number(), ...MoneyFields })),
    unavailableMetrics: Type.Optional(Type.Array(UnavailableMetric)),
    dataDelay: Type.Optional(Type.String()),
  }),
  async handler({ adapter, account, query, io }) {
    const q = query as Record<string, string | undefined>;
    if (q.breakdown !== undefined)
      throw invalid('invalid_breakdown', 'Post earnings take no breakdown', { fields: { breakdown: ['not taken'] } });
    const windowed = WINDOW_PARAMS.filter((p) => q[p] !== undefined);
    if (windowed.length)
      throw invalid(
        'unsupported_parameter',
        `Post earnings are lifetime totals and take no ${windowed.join(', ')}: they cannot be scoped to a window`,
        { fields: Object.fromEntries(windowed.map((p) => [p, ['not taken: earnings are lifetime totals']])) },
      );
    const pageId = typeof account!.metadata.pageId === 'string' ? account!.metadata.pageId : null;
    // "{pageId}_{postId}" of this Page, or a reel's bare video id.
    if (!/^\d+(_\d+)?$/.test(query.postId) || (query.postId.includes('_') && !query.postId.startsWith(`${pageId}_`)))
      throw invalid(
        'invalid_post_id',
        'postId must be a post of this Page ("{pageId}_{postId}") or a reel\'s video id',
        {
          fields: { postId: ['not a post of this Page'] },
        },
      );
    const metrics = metricList(query.metrics, MONEY_METRICS, MONEY_METRICS);
    const read = await adapter.insights.postEarnings(account!, query.postId, metrics, io);
    const out: Record<string, { total: number; unit?: 'micro_amount' | 'unspecified'; currency?: string | null }> = {};
    for (const m of metrics) {
      const r = read.metrics[m];
      if (r) out[m] = { total: sum(r.values), unit: r.unit, currency: r.currency ?? null };
    }
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        postId: query.postId,
        platform: 'facebook',
        period: 'lifetime' as const,
        metrics: out,
        ...(read.unavailable.length ? { unavailableMetrics: read.unavailable } : {}),
        dataDelay: 'Meta reports approximate earnings and may restate them later.',
      },
    };
  },
});

export const FACEBOOK_INSIGHTS_TOOLS = [pageInsights, postEarnings];
