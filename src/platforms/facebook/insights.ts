import { PlatformError, type AccountCredentials, type PlatformIO } from '../types.js';
import { graph, graphBase, type FacebookOptions } from './api.js';
import { selectedPage } from './page.js';

/*
 * The Page's insights, read live with the Page token
 * (https://developers.facebook.com/documentation/pages-api/platforminsights/page, needs `read_insights`
 * and `pages_read_engagement`):
 * - `GET /{page}/insights?metric=...&period=day&since=&until=` (Unix seconds; Meta serves at most 90 days
 *   a call, and the hosted API's range of 89 days fits one); a day's value is stamped with `end_time` the
 *   next day, so the `since` day is the first value;
 * - the money metrics each in a call of their own (one refused does not sink the others), and a post's
 *   lifetime money with `GET /{post}/insights?metric=...&period=lifetime` (`{page}_{post}` ids) or
 *   `GET /{video}/video_insights` (a reel's bare video id).
 * content_monetization_earnings answers `{currency, micro_amount}` objects, monetization_approximate_earnings
 * bare numbers (https://developers.facebook.com/docs/graph-api/reference/insights); Herald passes both on
 * unscaled, with their unit. A money metric Graph refuses or answers no bucket for is reported unavailable
 * with why, never as 0.
 */

const DAY_MS = 86_400_000;
export const MONEY_METRICS = ['content_monetization_earnings', 'monetization_approximate_earnings'];

type UnavailableReason =
  | 'not_enrolled'
  | 'permission_missing'
  | 'unsupported_metric'
  | 'no_data'
  | 'unreadable_value'
  | 'mixed_currency'
  | 'upstream_error';

export interface FbMetricRead {
  values: { date: string; value: number }[];
  unit?: 'micro_amount' | 'unspecified';
  currency?: string | null;
}

interface FbInsightsRead {
  metrics: Record<string, FbMetricRead>;
  unavailable: { metric: string; reason: UnavailableReason; message: string }[];
}

export interface FacebookInsights {
  /** Daily values of Page metrics over [since, until] (UTC days, both included). */
  page(
    account: AccountCredentials,
    q: { metrics: string[]; since: string; until: string },
    io: PlatformIO,
  ): Promise<FbInsightsRead>;
  /** A post's (or reel's) lifetime money metrics. */
  postEarnings(account: AccountCredentials, postId: string, metrics: string[], io: PlatformIO): Promise<FbInsightsRead>;
}

interface Item {
  name?: unknown;
  values?: { value?: unknown; end_time?: string }[];
}

const itemsOf = (body: unknown): Item[] => {
  const data = (body as { data?: unknown } | null)?.data;
  return Array.isArray(data) ? (data as Item[]) : [];
};

/** One value as a number in its unit, or null when its shape is not one Meta documents. */
function moneyOf(metric: string, value: unknown): { amount: number; currency: string | null } | null {
  if (metric === 'monetization_approximate_earnings')
    return typeof value === 'number' && Number.isFinite(value) ? { amount: value, currency: null } : null;
  const v = value as { micro_amount?: unknown; currency?: unknown } | null;
  const amount = Number(v?.micro_amount);
  if (!v || typeof v !== 'object' || !Number.isFinite(amount)) return null;
  return { amount, currency: typeof v.currency === 'string' ? v.currency : null };
}

/** A money metric's buckets read into one FbMetricRead, or why they cannot be. */
function readMoney(
  metric: string,
  buckets: { date: string; value: unknown }[],
): FbMetricRead | { reason: UnavailableReason; message: string } {
  if (!buckets.length) return { reason: 'no_data', message: `Facebook returned no ${metric} for this range` };
  const read = buckets.map((b) => ({ date: b.date, money: moneyOf(metric, b.value) }));
  if (read.some((r) => r.money === null))
    return { reason: 'unreadable_value', message: `Facebook returned a ${metric} value Herald cannot read` };
  const currencies = new Set(read.map((r) => r.money!.currency));
  if (currencies.size > 1)
    return { reason: 'mixed_currency', message: `Facebook returned ${metric} in more than one currency` };
  return {
    values: read.map((r) => ({ date: r.date, value: r.money!.amount })),
    unit: metric === 'monetization_approximate_earnings' ? 'unspecified' : 'micro_amount',
    currency: [...currencies][0] ?? null,
  };
}

/** Why a money read failed, as the hosted API says it; throttling is thrown on (try again later). */
function failure(error: unknown): { reason: UnavailableReason; message: string } {
  if (!(error instanceof PlatformError)) throw error;
  // Throttling is for later; a post that does not exist (or not on this Page) is the caller's mistake.
  if (error.kind === 'rate_limited' || error.platformCode === '100/33') throw error;
  if (error.kind === 'auth') return { reason: 'permission_missing', message: error.message };
  if (error.kind === 'rejected' && error.platformCode?.startsWith('100'))
    return { reason: 'unsupported_metric', message: error.message };
  return { reason: 'upstream_error', message: error.message };
}

const seconds = (ms: number) => String(Math.floor(ms / 1000));
// Meta stamps a day's value with the end of that day (08:00 UTC the next day for Pages).
const dayBefore = (endTime: unknown) => new Date(Date.parse(String(endTime)) - DAY_MS).toISOString().slice(0, 10);

export function facebookInsights(opts: FacebookOptions): FacebookInsights {
  const base = graphBase(opts);

  async function daily(
    page: { pageId: string; token: string },
    metrics: string[],
    q: { since: string; until: string },
    io: PlatformIO,
  ): Promise<Map<string, { date: string; value: unknown }[]>> {
    const params = new URLSearchParams({
      metric: metrics.join(','),
      period: 'day',
      since: seconds(Date.parse(`${q.since}T00:00:00Z`)),
      until: seconds(Date.parse(`${q.until}T00:00:00Z`) + DAY_MS),
    });
    const res = await graph(io, { method: 'GET', url: `${base}/${page.pageId}/insights?${params}`, token: page.token });
    const out = new Map<string, { date: string; value: unknown }[]>();
    for (const item of itemsOf(res.body))
      out.set(
        String(item.name),
        (item.values ?? []).map((v) => ({ date: dayBefore(v.end_time), value: v.value })),
      );
    return out;
  }

  return {
    async page(account, q, io) {
      const page = selectedPage(account);
      const out: FbInsightsRead = { metrics: {}, unavailable: [] };
      const plain = q.metrics.filter((m) => !MONEY_METRICS.includes(m));
      if (plain.length) {
        const read = await daily(page, plain, q, io);
        for (const m of plain)
          out.metrics[m] = {
            values: (read.get(m) ?? [])
              .filter((v) => v.date >= q.since && v.date <= q.until)
              .map((v) => ({ date: v.date, value: Number(v.value ?? 0) })),
          };
      }
      for (const m of q.metrics.filter((x) => MONEY_METRICS.includes(x))) {
        let result: FbMetricRead | { reason: UnavailableReason; message: string };
        try {
          result = readMoney(
            m,
            ((await daily(page, [m], q, io)).get(m) ?? []).filter((v) => v.date >= q.since && v.date <= q.until),
          );
        } catch (error) {
          result = failure(error);
        }
        if ('values' in result) out.metrics[m] = result;
        else out.unavailable.push({ metric: m, ...result });
      }
      return out;
    },
    async postEarnings(account, postId, metrics, io) {
      const page = selectedPage(account);
      const edge = postId.includes('_') ? 'insights' : 'video_insights';
      const out: FbInsightsRead = { metrics: {}, unavailable: [] };
      for (const m of metrics) {
        let result: FbMetricRead | { reason: UnavailableReason; message: string };
        try {
          const params = new URLSearchParams({ metric: m, period: 'lifetime' });
          const res = await graph(io, {
            method: 'GET',
            url: `${base}/${encodeURIComponent(postId)}/${edge}?${params}`,
            token: page.token,
          });
          const item = itemsOf(res.body).find((i) => i.name === m);
          result = readMoney(
            m,
            (item?.values ?? []).map((v) => ({ date: 'lifetime', value: v.value })),
          );
        } catch (error) {
          result = failure(error);
        }
        if ('values' in result) out.metrics[m] = result;
        else out.unavailable.push({ metric: m, ...result });
      }
      return out;
    },
  };
}
