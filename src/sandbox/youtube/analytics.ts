import type { FastifyInstance, FastifyReply } from 'fastify';
import { Discovery, type DiscoveryParameter, readDiscovery } from '../discovery.js';
import type { OAuthSim } from '../oauth.js';
import type { SimulatorState } from '../types.js';
import {
  activityByCountry,
  activityByDay,
  addActivity,
  ALL_DIMENSIONS,
  ALL_METRICS,
  REPORTS,
  retentionCurve,
  viewerPercentages,
} from './analytics-reports.js';
import { channelFor, sendFault, ytError, ytStore, type YtVideo } from './store.js';

/*
 * The YouTube Analytics API v2 `reports.query` (GET /v2/reports on youtubeanalytics.googleapis.com),
 * held to its discovery document (youtubeAnalytics-v2.json, revision 2026-06, committed beside this file).
 * That document states `required` and `pattern` of each parameter inside its description text, so they
 * are read from there; the method's `scopes` say which grants may call it. The channel reports served,
 * with their numbers, are in analytics-reports.ts: basic and daily activity, by country, demographics
 * and a video's audience retention, of the whole channel or `filters=video==ID`.
 * https://developers.google.com/youtube/analytics/reference/reports/query
 */

const ANALYTICS = new Discovery(() =>
  readDiscovery(
    import.meta.url,
    './discovery/youtubeAnalytics-v2.json',
    '../../../src/sandbox/youtube/discovery/youtubeAnalytics-v2.json',
  ),
);

const ACTIVITY_SCOPES = [
  'https://www.googleapis.com/auth/yt-analytics.readonly',
  'https://www.googleapis.com/auth/yt-analytics-monetary.readonly',
];

interface ParamRule {
  required: boolean;
  pattern: RegExp | null;
}

/** Each parameter's rules, from the method's and the document's standard parameters. */
function parameterRules(): Map<string, ParamRule> {
  const doc = ANALYTICS.document;
  const out = new Map<string, ParamRule>();
  const add = (name: string, p: DiscoveryParameter) => {
    const text = String(p.description ?? '');
    const pattern = /pattern: "?([^\s"]+)/.exec(text)?.[1] ?? p.pattern ?? null;
    out.set(name, {
      required: p.required === true || /required: true/.test(text),
      pattern: pattern ? new RegExp(`^(?:${pattern})$`) : null,
    });
  };
  for (const [name, p] of Object.entries(doc.parameters ?? {})) add(name, p);
  for (const [name, p] of Object.entries(ANALYTICS.method('reports.query').parameters ?? {})) add(name, p);
  return out;
}

let rules: Map<string, ParamRule> | null = null;

function badRequest(reply: FastifyReply, message: string, location?: string): FastifyReply {
  return ytError(reply, 400, 'badRequest', message, { domain: 'global', ...(location ? { location } : {}) });
}

export function registerYouTubeAnalytics(
  app: FastifyInstance,
  state: SimulatorState,
  oauth: OAuthSim,
  now: () => number,
): void {
  app.get('/v2/reports', async (request, reply) => {
    rules ??= parameterRules();
    const q = request.query as Record<string, string | string[]>;
    for (const [name, value] of Object.entries(q)) {
      const rule = rules.get(name);
      if (!rule)
        return badRequest(
          reply,
          `Invalid JSON payload received. Unknown name "${name}": Cannot bind query parameter. Field '${name}' could not be found in request message.`,
        );
      if (Array.isArray(value))
        return badRequest(reply, `Invalid value for parameter ${name}: only one value is allowed.`, name);
      if (rule.pattern && !rule.pattern.test(value))
        return badRequest(reply, `Invalid value '${value}' for parameter ${name}.`, name);
    }
    for (const [name, rule] of rules)
      if (rule.required && q[name] === undefined) return badRequest(reply, `Required parameter: ${name}`, name);
    const channel = channelFor(request, reply, oauth);
    if (!channel) return reply;
    const scopes = oauth.scopesFor(request.headers.authorization) ?? [];
    const allowed: string[] = ANALYTICS.method('reports.query').scopes ?? [];
    // The method takes any of its scopes, but the user activity metrics of every report here are only
    // for a grant of yt-analytics.readonly (or its monetary superset), as the channel reports page says:
    // https://developers.google.com/youtube/analytics/channel_reports#authorization
    if (!scopes.some((s) => allowed.includes(s) && ACTIVITY_SCOPES.includes(s))) {
      return ytError(reply, 403, 'insufficientPermissions', 'Request had insufficient authentication scopes.', {
        domain: 'global',
      });
    }
    const fault = state.faults.take('lookup');
    if (sendFault(reply, fault, { reason: 'badRequest', message: 'The query was refused.' })) return reply;

    const p = q as Record<string, string>;
    if (p.ids !== 'channel==MINE' && p.ids !== `channel==${channel.id}`)
      return ytError(reply, 403, 'forbidden', 'Forbidden', { domain: 'global' });
    const query = readQuery(p);
    if ('refused' in query) return badRequest(reply, query.refused, query.location);
    const start = Date.parse(`${p.startDate}T00:00:00Z`);
    const end = Date.parse(`${p.endDate}T00:00:00Z`);
    if (Number.isNaN(start) || Number.isNaN(end))
      return badRequest(reply, 'Invalid date.', Number.isNaN(start) ? 'startDate' : 'endDate');
    if (start > end)
      return badRequest(reply, 'The start date must be earlier than or equal to the end date.', 'startDate');

    // Only the caller's own videos have data; another channel's video adds nothing.
    const wanted = query.filters.get('video');
    const videos = [...ytStore(state).videos.values()].filter(
      (v) => v.channelId === channel.id && !v.deleted && (!wanted || wanted.includes(v.id)),
    );
    const rows = reportRows(query, videos, wanted ? wanted.join(',') : channel.id, start, end, now());
    const sorted = sortRows(rows, query);
    return ANALYTICS.checked(
      'QueryResponse',
      {
        kind: 'youtubeAnalytics#resultTable',
        columnHeaders: [
          ...query.dimensions.map((name) => ({ name, columnType: 'DIMENSION', dataType: ALL_DIMENSIONS[name] })),
          ...query.metrics.map((name) => ({ name, columnType: 'METRIC', dataType: ALL_METRICS[name] })),
        ],
        ...(sorted.length ? { rows: sorted } : {}),
      },
      'YouTube Analytics',
    );
  });
}

const UNSUPPORTED =
  'The query is not supported. Check the documentation at https://developers.google.com/youtube/analytics/v2/available_reports for a list of supported queries.';

interface ReportQuery {
  dimensions: string[];
  metrics: string[];
  filters: Map<string, string[]>;
  sort: string[];
}

const names = (v: string | undefined) => (v ? v.split(',').map((s) => s.trim()) : []);

/**
 * The query's dimensions, metrics, filters and sort, held to the report its dimensions name: an unknown
 * name is refused as YouTube words it, a known one outside the report (or a report YouTube does not
 * have) is an unsupported query.
 */
function readQuery(p: Record<string, string>): ReportQuery | { refused: string; location?: string } {
  const metrics = names(p.metrics);
  const unknownMetric = metrics.find((m) => !ALL_METRICS[m]);
  if (unknownMetric !== undefined)
    return { refused: `Unknown identifier (${unknownMetric}) given in field parameters.metrics.`, location: 'metrics' };
  const dimensions = names(p.dimensions);
  const unknownDimension = dimensions.find((d) => !ALL_DIMENSIONS[d]);
  if (unknownDimension !== undefined)
    return {
      refused: `Unknown identifier (${unknownDimension}) given in field parameters.dimensions.`,
      location: 'dimensions',
    };
  const filters = new Map<string, string[]>();
  for (const part of p.filters ? p.filters.split(';') : []) {
    const m = /^([A-Za-z]+)==(.+)$/.exec(part);
    if (!m) return { refused: `Invalid filter (${part}) given in field parameters.filters.`, location: 'filters' };
    if (!ALL_DIMENSIONS[m[1]!])
      return { refused: `Unknown identifier (${m[1]}) given in field parameters.filters.`, location: 'filters' };
    filters.set(m[1]!, m[2]!.split(','));
  }
  const report = REPORTS[[...dimensions].sort().join(',')];
  if (
    !report ||
    new Set(dimensions).size !== dimensions.length ||
    metrics.some((m) => !report.metrics[m]) ||
    [...filters.keys()].some((f) => !report.filters.includes(f)) ||
    (report.required ?? []).some((f) => !filters.has(f)) ||
    // Retention is reported for one video at a time.
    (report.name === 'audience retention' && filters.get('video')!.length !== 1)
  )
    return { refused: UNSUPPORTED };
  const sort = names(p.sort);
  const columns = [...dimensions, ...metrics];
  const badSort = sort.find((s) => !columns.includes(s.replace(/^-/, '')));
  if (badSort !== undefined)
    return { refused: `Invalid sort (${badSort}): sort by a dimension or metric of the query.`, location: 'sort' };
  return { dimensions, metrics, filters, sort };
}

/** The report's rows, columns in the query's order (dimensions, then metrics). */
function reportRows(
  query: ReportQuery,
  videos: YtVideo[],
  scope: string,
  start: number,
  end: number,
  now: number,
): (string | number)[][] {
  const days = activityByDay(videos, start, end, now);
  const total = addActivity(days.map((d) => d.values));
  const pick = (values: Record<string, number>) => query.metrics.map((m) => values[m]!);
  const dims = [...query.dimensions].sort().join(',');
  switch (dims) {
    case '':
      return days.length ? [pick(total)] : [];
    case 'day':
      return days.map((d) => [d.day, ...pick(d.values)]);
    case 'country':
      return activityByCountry(scope, total).map((c) => [c.country, ...pick(c.values)]);
    case 'elapsedVideoTimeRatio':
      return retentionCurve(scope, total.views).map((r) => [r.elapsedVideoTimeRatio, ...pick(r)]);
    default: {
      // Demographics: none at all without views, as YouTube suppresses them for too few viewers.
      if (!total.views) return [];
      return viewerPercentages(scope, query.dimensions).map((r) => [...r.keys, r.value]);
    }
  }
}

/** `sort`: each key ascending, or descending with a leading `-`. */
function sortRows(rows: (string | number)[][], query: ReportQuery): (string | number)[][] {
  const columns = [...query.dimensions, ...query.metrics];
  const keys = query.sort.map((s) => ({ at: columns.indexOf(s.replace(/^-/, '')), desc: s.startsWith('-') }));
  return [...rows].sort((a, b) => {
    for (const k of keys) {
      const x = a[k.at]!;
      const y = b[k.at]!;
      if (x !== y) return (x < y ? -1 : 1) * (k.desc ? -1 : 1);
    }
    return 0;
  });
}
