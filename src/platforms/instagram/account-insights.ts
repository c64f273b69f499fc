import type { AccountCredentials, PlatformIO } from '../types.js';
import { graph, graphBase, type InstagramOptions } from './api.js';
import type { IgAccess } from './publish.js';

/*
 * The account's own insights (https://developers.facebook.com/docs/instagram-platform/api-reference/
 * instagram-user/insights), with the token that publishes: `GET /{ig-user}/insights` with `period=day`
 * and `since`/`until` in Unix seconds, at most 30 days a call (Meta's limit: a longer range is read in
 * windows of 30 days, whose totals are added), and the demographics with `period=lifetime`, one
 * breakdown a call.
 */

const DAY_MS = 86_400_000;
const WINDOW_DAYS = 30;

interface IgMetricRead {
  total: number;
  values?: { date: string; value: number }[];
  breakdowns?: { dimension: string; value: number }[];
}

export interface IgInsightsReader {
  /** Metrics over [since, until] (UTC days, both included). */
  read(
    account: AccountCredentials,
    q: {
      metrics: string[];
      metricType: 'time_series' | 'total_value';
      since: string;
      until: string;
      breakdown?: string;
    },
    io: PlatformIO,
  ): Promise<Record<string, IgMetricRead>>;
  /** One demographic metric per breakdown dimension. */
  demographics(
    account: AccountCredentials,
    q: { metric: string; timeframe: string; breakdowns: string[] },
    io: PlatformIO,
  ): Promise<Record<string, { dimension: string; value: number }[]>>;
}

const seconds = (ms: number) => String(Math.floor(ms / 1000));

/** One item of a Graph insights answer, as far as these reads look into it. */
interface InsightItem {
  name?: unknown;
  values?: { value?: unknown; end_time?: string }[];
  total_value?: {
    value?: unknown;
    breakdowns?: { results?: { dimension_values?: unknown[]; value?: unknown }[] }[];
  };
}

const itemsOf = (body: unknown): InsightItem[] => {
  const data = (body as { data?: unknown } | null)?.data;
  return Array.isArray(data) ? (data as InsightItem[]) : [];
};

function breakdownRows(item: InsightItem): { dimension: string; value: number }[] {
  const out: { dimension: string; value: number }[] = [];
  for (const b of item?.total_value?.breakdowns ?? [])
    for (const r of b?.results ?? [])
      out.push({ dimension: String((r?.dimension_values ?? []).join(', ')), value: Number(r?.value ?? 0) });
  return out;
}

export function instagramInsightsReader(opts: InstagramOptions, access: (a: AccountCredentials) => IgAccess) {
  const base = graphBase(opts);
  const reader: IgInsightsReader = {
    async read(account, q, io) {
      const a = access(account);
      const out: Record<string, IgMetricRead> = Object.fromEntries(
        q.metrics.map((m) => [m, q.metricType === 'time_series' ? { total: 0, values: [] } : { total: 0 }]),
      );
      const start = Date.parse(`${q.since}T00:00:00Z`);
      const end = Date.parse(`${q.until}T00:00:00Z`) + DAY_MS;
      for (let from = start; from < end; from += WINDOW_DAYS * DAY_MS) {
        const params = new URLSearchParams({
          metric: q.metrics.join(','),
          period: 'day',
          since: seconds(from),
          until: seconds(Math.min(end, from + WINDOW_DAYS * DAY_MS)),
        });
        if (q.metricType === 'total_value') params.set('metric_type', 'total_value');
        if (q.breakdown) params.set('breakdown', q.breakdown);
        const res = await graph(io, { method: 'GET', url: `${base}/${a.igUserId}/insights?${params}`, token: a.token });
        for (const item of itemsOf(res.body)) {
          const entry = out[String(item?.name)];
          if (!entry) continue;
          if (item.total_value) {
            entry.total += Number(item.total_value.value ?? 0);
            const rows = breakdownRows(item);
            if (rows.length) entry.breakdowns = [...(entry.breakdowns ?? []), ...rows];
          }
          for (const v of item.values ?? []) {
            // Meta stamps a day's value with the end of that day.
            const date = new Date(Date.parse(String(v.end_time)) - DAY_MS).toISOString().slice(0, 10);
            const value = Number(v.value ?? 0);
            entry.values?.push({ date, value });
            entry.total += value;
          }
        }
      }
      return out;
    },
    async demographics(account, q, io) {
      const a = access(account);
      const out: Record<string, { dimension: string; value: number }[]> = {};
      for (const b of q.breakdowns) {
        const params = new URLSearchParams({
          metric: q.metric,
          period: 'lifetime',
          metric_type: 'total_value',
          timeframe: q.timeframe,
          breakdown: b,
        });
        const res = await graph(io, { method: 'GET', url: `${base}/${a.igUserId}/insights?${params}`, token: a.token });
        out[b] = itemsOf(res.body)
          .flatMap(breakdownRows)
          .sort((x, y) => y.value - x.value);
      }
      return out;
    },
  };
  return reader;
}
