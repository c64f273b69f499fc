import { Type } from '@sinclair/typebox';
import { invalid } from '../../errors.js';
import { insightsRange, metricList } from '../insights-range.js';
import { platformTool } from '../tools.js';
import { gbpRequest, token } from './api.js';
import type { AccountCredentials, PlatformIO } from '../types.js';
import type { GoogleBusinessAdapter } from './index.js';

/*
 * What Google offers as analytics of a Business Profile: the location's daily metrics of the Business
 * Profile Performance API, `locations.fetchMultiDailyMetricsTimeSeries`
 * (https://developers.google.com/my-business/reference/performance/rest/v1/locations/fetchMultiDailyMetricsTimeSeries,
 * scope business.manage): impressions on Maps and Search by device, calls, website clicks, direction
 * requests, conversations, bookings and food orders. Local posts have no insights in this API; the v4
 * `localPosts:reportInsights` is still documented, but Google's deprecation schedule moves v4's
 * reportInsights to this API, so Herald builds no collection on it. A location has no followers either:
 * Herald's collection reads nothing for Google Business, and this route reads the location's numbers
 * live. Not a route of the hosted API: Herald's own, named like its gmb-* routes.
 */

/** The metrics of the method's enum (businessprofileperformance-v1.json), without DAILY_METRIC_UNKNOWN. */
const DAILY_METRICS = [
  'BUSINESS_IMPRESSIONS_DESKTOP_MAPS',
  'BUSINESS_IMPRESSIONS_DESKTOP_SEARCH',
  'BUSINESS_IMPRESSIONS_MOBILE_MAPS',
  'BUSINESS_IMPRESSIONS_MOBILE_SEARCH',
  'BUSINESS_CONVERSATIONS',
  'BUSINESS_DIRECTION_REQUESTS',
  'CALL_CLICKS',
  'WEBSITE_CLICKS',
  'BUSINESS_BOOKINGS',
  'BUSINESS_FOOD_ORDERS',
  'BUSINESS_FOOD_MENU_CLICKS',
] as const;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
/** The longest range one call asks for (Google keeps about 18 months of these numbers). */
const MAX_DAYS = 550;

function date(value: string | undefined, name: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  // A month or day out of range is no date at all (`new Date` is then invalid and toISOString throws).
  const parsed = DATE.test(value) ? new Date(`${value}T00:00:00Z`) : null;
  if (!parsed || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== value) {
    throw invalid('invalid_date_format', `${name} must be a date as YYYY-MM-DD`, {
      field: name,
      example: '2026-01-31',
    });
  }
  return value;
}

const Daily = Type.Array(Type.Object({ date: Type.String(), value: Type.Integer() }));

/** The location's daily metrics over [startDate, endDate] (fetchMultiDailyMetricsTimeSeries), per metric. */
async function readDailyMetrics(
  adapter: GoogleBusinessAdapter,
  acc: AccountCredentials,
  r: { asked: string[]; startDate: string; endDate: string; locationId?: string },
  io: PlatformIO,
) {
  const { asked, startDate, endDate } = r;
  const where = await adapter.resolveLocation(acc, r.locationId, io);
  const q = new URLSearchParams();
  for (const m of asked) q.append('dailyMetrics', m);
  for (const [which, value] of [
    ['startDate', startDate],
    ['endDate', endDate],
  ] as const) {
    const [y, mo, d] = value.split('-').map(Number);
    q.set(`dailyRange.${which}.year`, String(y));
    q.set(`dailyRange.${which}.month`, String(mo));
    q.set(`dailyRange.${which}.day`, String(d));
  }
  const res = await gbpRequest(io, {
    method: 'GET',
    url: `${adapter.options.performanceUrl}/v1/${where.v1}:fetchMultiDailyMetricsTimeSeries?${q}`,
    token: token(acc),
  });

  const metrics: Record<string, { total: number; daily: { date: string; value: number }[] }> = Object.fromEntries(
    asked.map((m) => [m, { total: 0, daily: [] }]),
  );
  for (const multi of res.body?.multiDailyMetricTimeSeries ?? []) {
    for (const s of multi?.dailyMetricTimeSeries ?? []) {
      const entry = metrics[String(s?.dailyMetric)];
      if (!entry) continue;
      for (const dv of s?.timeSeries?.datedValues ?? []) {
        const d = dv?.date;
        if (!d?.year || !d?.month || !d?.day) continue;
        // Google leaves `value` out when it is zero (an int64, sent as a string).
        const value = Number(dv.value ?? 0);
        const day = `${d.year}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
        entry.daily.push({ date: day, value: Number.isFinite(value) ? value : 0 });
        entry.total += Number.isFinite(value) ? value : 0;
      }
    }
  }
  return { where, metrics };
}

const performance = platformTool<GoogleBusinessAdapter>()({
  method: 'GET',
  path: 'gmb-performance',
  addon: 'analytics',
  tags: ['Analytics'],
  summary: "Get a Google Business location's daily performance metrics",
  description:
    "Reads the Business Profile Performance API live (fetchMultiDailyMetricsTimeSeries) for the account's location, or `locationId`. " +
    '`metrics` is a comma-separated list of its DailyMetric names (default all), `startDate`/`endDate` YYYY-MM-DD (default the last 30 days, end included).',
  querystring: Type.Object({
    locationId: Type.Optional(Type.String({ pattern: '^(locations/)?[0-9]+$', maxLength: 40 })),
    startDate: Type.Optional(Type.String({ maxLength: 32 })),
    endDate: Type.Optional(Type.String({ maxLength: 32 })),
    metrics: Type.Optional(Type.String({ maxLength: 500 })),
  }),
  response: Type.Object({
    success: Type.Boolean(),
    accountId: Type.String(),
    platform: Type.String(),
    locationId: Type.String(),
    dateRange: Type.Object({ startDate: Type.String(), endDate: Type.String() }),
    metrics: Type.Record(Type.String(), Type.Object({ total: Type.Integer(), daily: Daily })),
    note: Type.String(),
    lastUpdated: Type.String(),
  }),
  async handler({ adapter, account, query, io }) {
    const acc = account!;
    const asked = query.metrics
      ? [
          ...new Set(
            query.metrics
              .split(',')
              .map((m) => m.trim().toUpperCase())
              .filter(Boolean),
          ),
        ]
      : [...DAILY_METRICS];
    const unknown = asked.filter((m) => !(DAILY_METRICS as readonly string[]).includes(m));
    if (unknown.length || !asked.length) {
      throw invalid(
        'invalid_metrics',
        `Invalid metrics: ${unknown.join(', ') || '(none)'}. Valid options: ${DAILY_METRICS.join(', ')}`,
        { validOptions: [...DAILY_METRICS] },
      );
    }
    const now = io.now();
    const endDate = date(query.endDate, 'endDate') ?? now.toISOString().slice(0, 10);
    const startDate =
      date(query.startDate, 'startDate') ??
      new Date(Date.parse(`${endDate}T00:00:00Z`) - 29 * DAY_MS).toISOString().slice(0, 10);
    const days = (Date.parse(endDate) - Date.parse(startDate)) / DAY_MS;
    if (days < 0) throw invalid('invalid_date_range', 'startDate must be on or before endDate', { startDate, endDate });
    if (days >= MAX_DAYS)
      throw invalid('invalid_date_range', `the range may cover at most ${MAX_DAYS} days`, { startDate, endDate });

    const { where, metrics } = await readDailyMetrics(
      adapter,
      acc,
      { asked, startDate, endDate, locationId: query.locationId },
      io,
    );
    return {
      body: {
        success: true,
        accountId: acc.accountId,
        platform: 'googlebusiness',
        locationId: where.v1,
        dateRange: { startDate, endDate },
        metrics,
        note: 'Daily numbers of the Business Profile Performance API; Google reports the last few days late. Local posts have no per-post metrics.',
        lastUpdated: now.toISOString(),
      },
    };
  },
});

/**
 * GET /v1/analytics/googlebusiness/performance: the hosted API's route for the same reads (`accountId` in
 * the query, `fromDate`/`toDate` or their old names `startDate`/`endDate`, each metric's `values`).
 */
const hostedPerformance = platformTool<GoogleBusinessAdapter>()({
  method: 'GET',
  path: '/analytics/googlebusiness/performance',
  account: 'query',
  addon: 'analytics',
  tags: ['Analytics'],
  summary: 'Get Google Business Profile performance metrics',
  querystring: Type.Object({
    fromDate: Type.Optional(Type.String({ maxLength: 32 })),
    toDate: Type.Optional(Type.String({ maxLength: 32 })),
    startDate: Type.Optional(Type.String({ maxLength: 32 })),
    endDate: Type.Optional(Type.String({ maxLength: 32 })),
    metrics: Type.Optional(Type.String({ maxLength: 500 })),
  }),
  response: Type.Object({
    success: Type.Boolean(),
    accountId: Type.String(),
    platform: Type.String(),
    dateRange: Type.Object({ startDate: Type.String(), endDate: Type.String() }),
    metrics: Type.Record(Type.String(), Type.Object({ total: Type.Integer(), values: Daily })),
    dataDelay: Type.String(),
  }),
  async handler({ adapter, account, query, io }) {
    const asked = metricList(query.metrics, DAILY_METRICS, DAILY_METRICS);
    const range = insightsRange(
      { fromDate: query.fromDate ?? query.startDate, toDate: query.toDate ?? query.endDate },
      io.now(),
      MAX_DAYS,
    );
    const { metrics } = await readDailyMetrics(
      adapter,
      account!,
      { asked, startDate: range.since, endDate: range.until },
      io,
    );
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        platform: 'googlebusiness',
        dateRange: { startDate: range.since, endDate: range.until },
        metrics: Object.fromEntries(Object.entries(metrics).map(([k, v]) => [k, { total: v.total, values: v.daily }])),
        dataDelay: 'Google reports these numbers 2-3 days late.',
      },
    };
  },
});

export const PERFORMANCE_TOOLS = [performance, hostedPerformance];
