import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { OAuthSim } from '../oauth.js';
import type { DiscoveryParameter } from '../discovery.js';
import { hangUp, type SimulatorState } from '../types.js';
import { PERFORMANCE } from './discovery.js';
import { gbpError, locationFor, sendFault, userFor } from './store.js';

/*
 * Business Profile Performance API, `locations.fetchMultiDailyMetricsTimeSeries`
 * (GET /v1/locations/{id}:fetchMultiDailyMetricsTimeSeries on businessprofileperformance.googleapis.com),
 * held to its discovery document (businessprofileperformance-v1.json, committed beside this file): only
 * the query parameters the method and the document define (in camelCase or, as Google also binds them,
 * snake_case), `dailyMetrics` required and each a value of its enum, the date parts integers making a
 * real `dailyRange`, and the answer checked against FetchMultiDailyMetricsTimeSeriesResponse. A day's
 * value is left out when it is zero, as the document says. The numbers are a pure function of the
 * location, the metric and the day (`locationDailyValue`), none after today. Fault op `insights`.
 * https://developers.google.com/my-business/reference/performance/rest/v1/locations/fetchMultiDailyMetricsTimeSeries
 */

const SCOPE = 'https://www.googleapis.com/auth/business.manage';
const METHOD = 'locations.fetchMultiDailyMetricsTimeSeries';
const DAY = 86_400_000;

/** What one location reported for one daily metric on one UTC day (`YYYY-MM-DD`): deterministic, often 0 for rare actions. */
export function locationDailyValue(locationId: string, metric: string, date: string): number {
  const h = createHash('sha256').update(`${locationId}:${metric}:${date}`).digest();
  const scale = metric.startsWith('BUSINESS_IMPRESSIONS_')
    ? 200
    : metric === 'WEBSITE_CLICKS' || metric === 'CALL_CLICKS' || metric === 'BUSINESS_DIRECTION_REQUESTS'
      ? 20
      : 3;
  return h[0]! % scale;
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const protoPath = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const bind = (name: string) =>
  `Invalid JSON payload received. Unknown name "${name}": Cannot bind query parameter. Field '${name}' could not be found in request message.`;

/** A `google.type.Date` from the three query parts, as epoch ms of that UTC day; a string when it is wrong. */
function dateOf(q: Record<string, string>, which: 'startDate' | 'endDate'): number | string {
  const parts = ['year', 'month', 'day'].map((k) => q[`dailyRange.${which}.${k}`]);
  if (parts.some((p) => p === undefined)) return `daily_range.${protoPath(which)} is required`;
  const [y, m, d] = parts.map(Number);
  const ms = Date.UTC(y!, m! - 1, d!);
  const date = new Date(ms);
  if (y! < 1 || date.getUTCFullYear() !== y || date.getUTCMonth() !== m! - 1 || date.getUTCDate() !== d)
    return `daily_range.${protoPath(which)} is not a valid date`;
  return ms;
}

export function registerPerformance(
  app: FastifyInstance,
  state: SimulatorState,
  oauth: OAuthSim,
  now: () => number,
): void {
  const method = () => PERFORMANCE.method(METHOD);
  const invalid = (reply: FastifyReply, message: string, field?: string) => gbpError(reply, 400, message, field);

  app.get('/v1/locations/:l(^\\d+)::fetchMultiDailyMetricsTimeSeries', async (request, reply) => {
    const params: Record<string, DiscoveryParameter | undefined> = {
      ...PERFORMANCE.document.parameters,
      ...method().parameters,
    };
    const q: Record<string, string> = {};
    let metrics: string[] = [];
    for (const [raw, value] of Object.entries(request.query as Record<string, string | string[]>)) {
      const name = raw.includes('_') && !raw.startsWith('$') ? raw.split('.').map(camel).join('.') : raw;
      const p = params[name];
      if (!p || p.location !== 'query') return invalid(reply, bind(raw));
      if (name === 'dailyMetrics') {
        metrics = metrics.concat(Array.isArray(value) ? value : [value]);
        continue;
      }
      if (Array.isArray(value))
        return invalid(reply, `Invalid value at '${protoPath(name)}': only one value is allowed.`, protoPath(name));
      if (p.type === 'integer' && !/^-?\d+$/.test(value))
        return invalid(reply, `Invalid value at '${protoPath(name)}' (TYPE_INT32), "${value}"`, protoPath(name));
      q[name] = value;
    }
    const user = userFor(request, reply, oauth);
    if (!user) return reply;
    if (!(oauth.scopesFor(request.headers.authorization) ?? []).includes(SCOPE))
      return gbpError(reply, 403, 'Request had insufficient authentication scopes.');
    const enumValues: string[] = params.dailyMetrics?.enum ?? [];
    if (!metrics.length)
      return invalid(reply, 'Request contains an invalid argument: daily_metrics is required.', 'daily_metrics');
    const wrong = metrics.findIndex((m) => !enumValues.includes(m) || m === 'DAILY_METRIC_UNKNOWN');
    if (wrong >= 0)
      return invalid(
        reply,
        `Invalid value at 'daily_metrics[${wrong}]' (type.googleapis.com/google.type.DailyMetric), "${metrics[wrong]}"`,
        `daily_metrics[${wrong}]`,
      );
    const start = dateOf(q, 'startDate');
    if (typeof start === 'string')
      return invalid(reply, `Request contains an invalid argument: ${start}.`, 'daily_range');
    const end = dateOf(q, 'endDate');
    if (typeof end === 'string') return invalid(reply, `Request contains an invalid argument: ${end}.`, 'daily_range');
    if (start > end)
      return invalid(
        reply,
        'Request contains an invalid argument: the start date is after the end date.',
        'daily_range',
      );
    const loc = locationFor(state, reply, user, (request.params as { l: string }).l);
    if (!loc) return reply;
    const fault = state.faults.take('insights');
    if (sendFault(reply, fault)) return reply;
    if (fault === 'ambiguous') return hangUp(reply);

    const today = Math.floor(now() / DAY) * DAY;
    const days: number[] = [];
    for (let t = start; t <= Math.min(end, today); t += DAY) days.push(t);
    const series = [...new Set(metrics)].map((dailyMetric) => ({
      dailyMetric,
      timeSeries: {
        datedValues: days.map((t) => {
          const d = new Date(t);
          const value = locationDailyValue(loc.id, dailyMetric, d.toISOString().slice(0, 10));
          return {
            date: { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() },
            ...(value ? { value: String(value) } : {}),
          };
        }),
      },
    }));
    return PERFORMANCE.checked(
      'FetchMultiDailyMetricsTimeSeriesResponse',
      { multiDailyMetricTimeSeries: [{ dailyMetricTimeSeries: series }] },
      'Google Business',
    );
  });
}
