import { createHash } from 'node:crypto';
import type { GraphCall, GraphHandler } from '../graph/index.js';
import { graphError, invalidParam, sendGraphFault } from '../graph/errors.js';

/*
 * Instagram account insights (https://developers.facebook.com/docs/instagram-platform/api-reference/
 * instagram-user/insights): `GET /{ig-user}/insights?metric=&period=&metric_type=&since=&until=
 * &breakdown=&timeframe=`. The Graph core holds every parameter to the IGUser `insights` edge of Meta's
 * specs (enums `shadowiguserinsights_*`); on top, the rules of the reference page:
 * - interaction metrics take `period=day`; only `reach` (and `follower_count`) have a daily series, the
 *   others need `metric_type=total_value`;
 * - demographic metrics take `period=lifetime`, `metric_type=total_value`, a `timeframe` and a
 *   `breakdown` (age, city, country, gender), and answer the top 45 values;
 * - `since`..`until` (Unix seconds) spans at most 30 days;
 * - metrics deprecated since v22.0 (`impressions`) are refused by the enum already;
 * - the token must carry `instagram_manage_insights` (Facebook Login) or
 *   `instagram_business_manage_insights` (Instagram Login), else Graph's (#10).
 * Numbers are a pure function of the account, metric and day (`accountInsightValue`), so a test can
 * predict them. Fault op `insights`.
 */

const DAY_S = 86_400;
const MAX_RANGE_S = 30 * DAY_S;
const IG_DEMOGRAPHIC_METRICS = ['follower_demographics', 'engaged_audience_demographics'];
const DAILY_SERIES = ['reach', 'follower_count'];
const BREAKDOWN_VALUES: Record<string, string[]> = {
  age: ['13-17', '18-24', '25-34', '35-44', '45-54', '55-64', '65+'],
  gender: ['F', 'M', 'U'],
  country: ['US', 'GB', 'DE', 'FR', 'BR', 'IN'],
  city: ['London, England', 'New York, New York', 'Paris, Ile-de-France', 'Berlin, Berlin'],
};

function hashed(...parts: string[]): number {
  return createHash('sha256').update(parts.join('|')).digest().readUInt32BE(0);
}

/** What the simulator reports for `metric` on the UTC day `day` (YYYY-MM-DD) of account `igUserId`. */
export function accountInsightValue(igUserId: string, metric: string, day: string): number {
  return 10 + (hashed(igUserId, metric, day) % 990);
}

/** A demographic value of the account (counts of followers or engaged accounts). */
export function demographicValue(igUserId: string, metric: string, timeframe: string, key: string): number {
  return 1 + (hashed(igUserId, metric, timeframe, key) % 500);
}

const list = (v: unknown) =>
  String(v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const dayOf = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);

const accountInsights: GraphHandler = (call: GraphCall) => {
  const permission =
    call.token.kind === 'instagram' ? 'instagram_business_manage_insights' : 'instagram_manage_insights';
  if (!call.token.scopes.includes(permission))
    return graphError(call.reply, 400, {
      message: `(#10) Application does not have permission for this action: it needs the '${permission}' permission`,
      code: 10,
    });
  if (sendGraphFault(call.reply, call.state.faults.take('insights'))) return call.reply;
  const igUserId = call.node.id;
  const metrics = list(call.params.metric);
  const period = String(call.params.period ?? '');
  const metricType = String(call.params.metric_type ?? 'default');
  const breakdowns = list(call.params.breakdown);
  const demographic = metrics.filter((m) => IG_DEMOGRAPHIC_METRICS.includes(m));
  if (demographic.length) {
    if (demographic.length !== metrics.length)
      return invalidParam(call.reply, '(#100) Demographic metrics cannot be requested with other metrics');
    if (period !== 'lifetime')
      return invalidParam(call.reply, `(#100) metric ${demographic[0]} only supports period lifetime`);
    if (metricType !== 'total_value' || !breakdowns.length || !call.params.timeframe)
      return invalidParam(
        call.reply,
        `(#100) ${demographic[0]} needs metric_type=total_value, a breakdown and a timeframe`,
      );
    const timeframe = String(call.params.timeframe);
    return {
      data: demographic.map((name) => ({
        id: `${igUserId}/insights/${name}/lifetime`,
        name,
        period: 'lifetime',
        title: name,
        description: 'The demographic characteristics of the audience',
        total_value: {
          breakdowns: breakdowns.map((b) => ({
            dimension_keys: [b],
            results: (BREAKDOWN_VALUES[b] ?? [])
              .slice(0, 45)
              .map((v) => ({ dimension_values: [v], value: demographicValue(igUserId, name, timeframe, `${b}:${v}`) })),
          })),
        },
      })),
    };
  }
  if (period !== 'day') return invalidParam(call.reply, `(#100) Incompatible period ${period} for these metrics`);
  if (metricType !== 'total_value') {
    const needTotal = metrics.filter((m) => !DAILY_SERIES.includes(m));
    if (needTotal.length)
      return invalidParam(
        call.reply,
        `(#100) The following metrics (${needTotal.join(', ')}) should be specified with parameter metric_type=total_value`,
      );
    if (breakdowns.length) return invalidParam(call.reply, '(#100) breakdown requires metric_type=total_value');
  }
  const now = Math.floor(call.now / 1000);
  const since = call.params.since === undefined ? now - DAY_S : Number(call.params.since);
  const until = call.params.until === undefined ? now : Number(call.params.until);
  if (until <= since) return invalidParam(call.reply, '(#100) since must be before until');
  if (until - since > MAX_RANGE_S)
    return invalidParam(
      call.reply,
      `(#100) There cannot be more than 30 days (${MAX_RANGE_S} s) between since and until`,
    );
  const days: string[] = [];
  for (let t = since - (since % DAY_S); t < until; t += DAY_S) days.push(dayOf(t));
  return {
    data: metrics.map((name) => {
      const base = { id: `${igUserId}/insights/${name}/day`, name, period: 'day', title: name, description: name };
      const sum = days.reduce((s, d) => s + accountInsightValue(igUserId, name, d), 0);
      if (metricType === 'total_value') {
        const b = breakdowns[0];
        return {
          ...base,
          total_value: {
            value: sum,
            ...(b
              ? {
                  breakdowns: [
                    {
                      dimension_keys: [b],
                      results: [
                        { dimension_values: ['A'], value: Math.floor(sum / 2) },
                        { dimension_values: ['B'], value: sum - Math.floor(sum / 2) },
                      ],
                    },
                  ],
                }
              : {}),
          },
        };
      }
      // A day's value ends at the end of the day (Meta stamps end_time with the next day's start).
      return {
        ...base,
        values: days.map((d) => ({
          value: accountInsightValue(igUserId, name, d),
          end_time: new Date(Date.parse(`${d}T00:00:00Z`) + DAY_S * 1000).toISOString().replace('.000Z', '+0000'),
        })),
      };
    }),
  };
};

export const ACCOUNT_INSIGHTS_HANDLERS: Record<string, GraphHandler> = { 'GET IGUser insights': accountInsights };
