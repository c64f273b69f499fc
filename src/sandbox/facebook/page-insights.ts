import { createHash } from 'node:crypto';
import type { GraphCall, GraphHandler } from '../graph/index.js';
import { graphError, invalidParam, sendGraphFault } from '../graph/errors.js';

/*
 * Facebook Page insights (https://developers.facebook.com/docs/graph-api/reference/insights and
 * https://developers.facebook.com/documentation/pages-api/platforminsights/page): `GET /{page}/insights?
 * metric=&period=&since=&until=` with the Page's token. The Graph core holds the params to the Page
 * `insights` edge of Meta's specs (period enum, since/until datetimes); Meta's specs have no enum of Page
 * metrics (`list<Object>`), so the names are checked here against the live ones below. Rules of the
 * reference pages:
 * - a Page access token, granted `read_insights` and `pages_read_engagement` (else Graph's (#10) or
 *   (#190) for a user token);
 * - metric names outside the list, including those Meta deprecated on 2025-11-15 (page_impressions,
 *   page_fans, page_fan_adds, page_fan_removes), are `(#100) The value must be a valid insights metric`;
 *   no metric at all is error 3001, subcode 1504028;
 * - each metric has its periods (a `lifetime` read of a daily metric is refused);
 * - `since`..`until` spans at most 90 days; a day's value carries `end_time` the next day at 08:00 UTC
 *   (Pacific midnight), so the `since` day is the first value.
 * Numbers are a pure function of the Page, metric and day (`pageInsightValue`), so tests predict them.
 * Monetization answers a money object on content_monetization_earnings and a bare number on
 * monetization_approximate_earnings, as Meta does. Fault op `insights`.
 */

const DAY_S = 86_400;
const MAX_RANGE_S = 90 * DAY_S;
const ROLLING = ['day', 'week', 'days_28'];

/** The Page metrics the simulator serves, with the periods Meta allows for each. */
const PAGE_METRICS: Record<string, string[]> = {
  page_media_view: ROLLING,
  page_total_media_view_unique: ROLLING,
  page_views_total: ROLLING,
  page_post_engagements: ROLLING,
  page_video_views: ROLLING,
  page_video_view_time: ['day'],
  page_follows: ['day'],
  page_daily_follows_unique: ['day'],
  page_daily_unfollows_unique: ['day'],
  content_monetization_earnings: ROLLING,
  monetization_approximate_earnings: ROLLING,
};

function hashed(...parts: string[]): number {
  return createHash('sha256').update(parts.join('|')).digest().readUInt32BE(0);
}

/** A Page's (or post's) lifetime content earnings, in micro units of USD. */
export const earningsMicro = (id: string, day = 'lifetime') =>
  hashed(id, 'content_monetization_earnings', day) % 5_000_000;
/** Meta's approximate earnings: a bare number with two decimals. */
export const approximateEarnings = (id: string, day = 'lifetime') =>
  (hashed(id, 'monetization_approximate_earnings', day) % 50_000) / 100;

/**
 * What the simulator reports for `metric` on the UTC day `day` (YYYY-MM-DD) of Page `pageId` with
 * `period=day`: page_follows is the Page's follower count that day, the money metrics Meta's shapes,
 * the others a daily count.
 */
export function pageInsightValue(pageId: string, metric: string, day: string): unknown {
  if (metric === 'page_follows') return 2_000 + (hashed(pageId, metric, day) % 100);
  if (metric === 'content_monetization_earnings') return { currency: 'USD', micro_amount: earningsMicro(pageId, day) };
  if (metric === 'monetization_approximate_earnings') return approximateEarnings(pageId, day);
  return 10 + (hashed(pageId, metric, day) % 990);
}

const dayOf = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);

/** Adds two values of one metric (numbers, or money objects of one currency). */
function add(a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') return Math.round((a + b) * 100) / 100;
  const x = a as { currency: string; micro_amount: number };
  const y = b as { micro_amount: number };
  return { currency: x.currency, micro_amount: x.micro_amount + y.micro_amount };
}

/** The value of `metric` for the period ending with `day`: the day alone, or the 7 or 28 days up to it. */
function periodValue(pageId: string, metric: string, period: string, day: string): unknown {
  const span = period === 'week' ? 7 : period === 'days_28' ? 28 : 1;
  const end = Date.parse(`${day}T00:00:00Z`) / 1000;
  let value = pageInsightValue(pageId, metric, day);
  for (let i = 1; i < span; i++) value = add(value, pageInsightValue(pageId, metric, dayOf(end - i * DAY_S)));
  return value;
}

const PERMISSIONS = ['read_insights', 'pages_read_engagement'];

/** Graph's refusal of a token without what Page insights need, or null when it may read them. */
export function insightsRefusal(call: GraphCall, pageId: string): { message: string; code: number } | null {
  if (call.token.kind !== 'page' || call.token.pageId !== pageId)
    return { message: '(#190) This method must be called with a Page Access Token', code: 190 };
  const missing = PERMISSIONS.find((p) => !call.token.scopes.includes(p));
  if (!missing) return null;
  return missing === 'read_insights'
    ? { message: "(#10) This endpoint requires the 'read_insights' permission", code: 10 }
    : {
        message:
          "(#10) This endpoint requires the 'pages_read_engagement' permission or the 'Page Public Content Access' feature",
        code: 10,
      };
}

const list = (v: unknown) =>
  (Array.isArray(v) ? v.map(String) : String(v ?? '').split(',')).map((s) => s.trim()).filter(Boolean);

const pageInsights: GraphHandler = (call: GraphCall) => {
  const pageId = call.node.id;
  const refusal = insightsRefusal(call, pageId);
  if (refusal) return graphError(call.reply, 400, refusal);
  const metrics = list(call.params.metric);
  if (!metrics.length)
    return graphError(call.reply, 400, {
      message: 'No metric was specified to be fetched. Please specify one or more metrics to be fetched and try again.',
      code: 3001,
      subcode: 1504028,
    });
  if (metrics.some((m) => !(m in PAGE_METRICS)))
    return graphError(call.reply, 400, { message: '(#100) The value must be a valid insights metric', code: 100 });
  const period = String(call.params.period ?? 'day');
  const wrong = metrics.find((m) => !PAGE_METRICS[m]!.includes(period));
  if (wrong)
    return invalidParam(
      call.reply,
      `(#100) The metric ${wrong} does not support period ${period}; use one of ${PAGE_METRICS[wrong]!.join(', ')}`,
    );
  if (sendGraphFault(call.reply, call.state.faults.take('insights'))) return call.reply;
  const now = Math.floor(call.now / 1000);
  const toSeconds = (v: unknown, fallback: number) =>
    v === undefined ? fallback : /^\d+$/.test(String(v)) ? Number(v) : Math.floor(Date.parse(String(v)) / 1000);
  const until = toSeconds(call.params.until, now);
  const since = toSeconds(call.params.since, until - 2 * DAY_S);
  if (until <= since) return invalidParam(call.reply, '(#100) since must be before until');
  if (until - since > MAX_RANGE_S)
    return invalidParam(
      call.reply,
      `(#100) There cannot be more than 90 days (${MAX_RANGE_S} s) between since and until`,
    );
  const days: string[] = [];
  for (let t = since - (since % DAY_S); t < until; t += DAY_S) days.push(dayOf(t));
  return {
    data: metrics.map((name) => ({
      id: `${pageId}/insights/${name}/${period}`,
      name,
      period,
      title: name,
      description: name,
      values: days.map((d) => ({
        value: periodValue(pageId, name, period, d),
        end_time: new Date(Date.parse(`${d}T08:00:00Z`) + DAY_S * 1000).toISOString().replace('.000Z', '+0000'),
      })),
    })),
    paging: { previous: '', next: '' },
  };
};

export const PAGE_INSIGHTS_HANDLERS: Record<string, GraphHandler> = { 'GET Page insights': pageInsights };
