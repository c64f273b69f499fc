import { Type } from '@sinclair/typebox';
import { invalid } from '../../errors.js';
import { dayBefore, followerSeries, insightsRange, metricList } from '../insights-range.js';
import { BreakdownRow, InsightsRange, InsightsResponse, MetricType } from '../insights-response.js';
import { platformTool } from '../tools.js';
import type { InstagramAdapter } from './index.js';

/*
 * GET /v1/analytics/instagram/account-insights and /demographics: the account's insights read live from
 * Graph (account-insights.ts). Analytics add-on; the account is the `accountId` query parameter, and one
 * of another platform is a 400 from the tool registrar.
 */

/** The account metrics the hosted API accepts (all in Meta's enum of the IGUser insights edge). */
const METRICS = [
  'reach',
  'views',
  'accounts_engaged',
  'total_interactions',
  'comments',
  'likes',
  'saves',
  'shares',
  'replies',
  'reposts',
  'follows_and_unfollows',
  'profile_links_taps',
] as const;
const DEFAULT_METRICS = ['reach', 'views', 'accounts_engaged', 'total_interactions'];
/** Meta reports a daily series for reach only; the others are totals. */
const SERIES = ['reach'];
const BREAKDOWNS = ['media_product_type', 'follow_type', 'follower_type', 'contact_button_type'];
const DIMENSIONS = ['age', 'city', 'country', 'gender'];
const DELAY = 'Instagram may report account insights up to 48 hours late.';

const Row = BreakdownRow;

const Range = InsightsRange;

const accountInsights = platformTool<InstagramAdapter>()({
  method: 'GET',
  path: '/analytics/instagram/account-insights',
  account: 'query',
  addon: 'analytics',
  tags: ['Analytics'],
  summary: 'Get Instagram insights',
  querystring: Type.Object({
    ...Range,
    metrics: Type.Optional(Type.String({ maxLength: 500 })),
    metricType: Type.Optional(MetricType),
    breakdown: Type.Optional(Type.String({ maxLength: 40 })),
  }),
  response: InsightsResponse,
  async handler({ adapter, account, query, io }) {
    const metrics = metricList(query.metrics, METRICS, DEFAULT_METRICS);
    const metricType = query.metricType ?? 'total_value';
    if (metricType === 'time_series' && metrics.some((m) => !SERIES.includes(m)))
      throw invalid('invalid_metric_type', 'metricType=time_series works with the "reach" metric only', {
        fields: { metricType: ['time_series needs metrics=reach'] },
      });
    if (query.breakdown && (metricType !== 'total_value' || !BREAKDOWNS.includes(query.breakdown)))
      throw invalid(
        'invalid_breakdown',
        `breakdown must be one of ${BREAKDOWNS.join(', ')}, with metricType=total_value`,
        {
          fields: { breakdown: [`one of ${BREAKDOWNS.join(', ')}`] },
        },
      );
    const range = insightsRange(query, io.now(), 90);
    const read = await adapter.accountInsights.read(
      account!,
      { metrics, metricType, ...range, breakdown: query.breakdown },
      io,
    );
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        platform: 'instagram',
        dateRange: range,
        metricType,
        ...(query.breakdown ? { breakdown: query.breakdown } : {}),
        metrics: read,
        dataDelay: DELAY,
      },
    };
  },
});

const demographics = platformTool<InstagramAdapter>()({
  method: 'GET',
  path: '/analytics/instagram/demographics',
  account: 'query',
  addon: 'analytics',
  tags: ['Analytics'],
  summary: 'Get Instagram demographics',
  querystring: Type.Object({
    metric: Type.Optional(
      Type.Union([Type.Literal('follower_demographics'), Type.Literal('engaged_audience_demographics')]),
    ),
    timeframe: Type.Optional(Type.Union([Type.Literal('this_week'), Type.Literal('this_month')])),
    breakdown: Type.Optional(Type.String({ maxLength: 100 })),
  }),
  response: Type.Object({
    success: Type.Boolean(),
    accountId: Type.String(),
    platform: Type.String(),
    metric: Type.String(),
    timeframe: Type.String(),
    demographics: Type.Record(Type.String(), Type.Array(Row)),
    note: Type.String(),
  }),
  async handler({ adapter, account, query, io }) {
    const breakdowns = metricList(query.breakdown, DIMENSIONS, DIMENSIONS);
    const metric = query.metric ?? 'follower_demographics';
    const timeframe = query.timeframe ?? 'this_month';
    const demographics = await adapter.accountInsights.demographics(account!, { metric, timeframe, breakdowns }, io);
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        platform: 'instagram',
        metric,
        timeframe,
        demographics,
        note:
          'Instagram reports the top 45 values of each dimension, for accounts with at least 100 followers. ' + DELAY,
      },
    };
  },
});

/*
 * GET /v1/analytics/instagram/follower-history: a daily running follower count. Graph has none: its
 * `follower_count` metric is new follows a day, over the last 30 days only (and is gone from Graph v22+),
 * so, as the hosted API serves it from its daily snapshots, Herald serves it from its own daily follower
 * reads (the `followers_count` of the IG user, read once a day by analytics collection). A day without a
 * read has no value.
 */
const FOLLOWER_METRICS = ['follower_count', 'followers_gained', 'followers_lost'] as const;

const followerHistory = platformTool<InstagramAdapter>()({
  method: 'GET',
  path: '/analytics/instagram/follower-history',
  account: 'query',
  addon: 'analytics',
  tags: ['Analytics'],
  summary: 'Get Instagram follower history',
  querystring: Type.Object({
    ...Range,
    metrics: Type.Optional(Type.String({ maxLength: 200 })),
    metricType: Type.Optional(MetricType),
  }),
  response: InsightsResponse,
  async handler({ account, query, io, followerHistory: history }) {
    const metrics = metricList(
      query.metrics,
      FOLLOWER_METRICS,
      FOLLOWER_METRICS,
    ) as (typeof FOLLOWER_METRICS)[number][];
    const metricType = query.metricType ?? 'total_value';
    const range = insightsRange(query, io.now(), 89);
    const series = followerSeries(await history(dayBefore(range.since), range.until), range.since, range.until);
    const out: Record<string, { total: number; values?: { date: string; value: number }[] }> = {};
    for (const m of metrics) {
      const values = series[m];
      // The count's total is its latest value; gains and losses add up.
      const total =
        m === 'follower_count' ? (values[values.length - 1]?.value ?? 0) : values.reduce((s, v) => s + v.value, 0);
      out[m] = metricType === 'time_series' ? { total, values } : { total };
    }
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        platform: 'instagram',
        dateRange: range,
        metricType,
        metrics: out,
        dataDelay: "Herald's daily follower reads: one value a day, from the day the account was first read.",
      },
    };
  },
});

export const INSTAGRAM_INSIGHTS_TOOLS = [accountInsights, demographics, followerHistory];
