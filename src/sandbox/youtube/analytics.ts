import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Discovery, type DiscoveryParameter, readDiscovery } from '../discovery.js';
import { dayMetrics } from '../metrics.js';
import type { OAuthSim } from '../oauth.js';
import type { SimulatorState } from '../types.js';
import { channelFor, sendFault, ytError, ytStore } from './store.js';

/*
 * The YouTube Analytics API v2 `reports.query` (GET /v2/reports on youtubeanalytics.googleapis.com),
 * held to its discovery document (youtubeAnalytics-v2.json, revision 2026-06, committed beside this file).
 * That document states `required` and `pattern` of each parameter inside its description text, so they
 * are read from there; the method's `scopes` say which grants may call it. Only the channel's own video
 * report by day is served (`dimensions=day`, `filters=video==ID`), the report Herald asks for.
 * https://developers.google.com/youtube/analytics/reference/reports/query
 */

const ANALYTICS = new Discovery(() =>
  readDiscovery(
    import.meta.url,
    './discovery/youtubeAnalytics-v2.json',
    '../../../src/sandbox/youtube/discovery/youtubeAnalytics-v2.json',
  ),
);

/** Metrics this report serves, with their column data types (https://developers.google.com/youtube/analytics/metrics). */
const METRICS: Record<string, 'INTEGER' | 'FLOAT'> = {
  views: 'INTEGER',
  estimatedMinutesWatched: 'FLOAT',
  averageViewDuration: 'INTEGER',
  subscribersGained: 'INTEGER',
  subscribersLost: 'INTEGER',
  likes: 'INTEGER',
  dislikes: 'INTEGER',
  comments: 'INTEGER',
  shares: 'INTEGER',
};
const DAY = 86_400_000;

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
    if (!scopes.some((s) => allowed.includes(s))) {
      return ytError(reply, 403, 'insufficientPermissions', 'Request had insufficient authentication scopes.', {
        domain: 'global',
      });
    }
    const fault = state.faults.take('lookup');
    if (sendFault(reply, fault, { reason: 'badRequest', message: 'The query was refused.' })) return reply;

    const p = q as Record<string, string>;
    if (p.ids !== 'channel==MINE' && p.ids !== `channel==${channel.id}`)
      return ytError(reply, 403, 'forbidden', 'Forbidden', { domain: 'global' });
    const metrics = p.metrics.split(',');
    const unknown = metrics.find((m) => !METRICS[m]);
    if (unknown)
      return badRequest(reply, `Unknown identifier (${unknown}) given in field parameters.metrics.`, 'metrics');
    if ((p.dimensions ?? '') !== 'day')
      return badRequest(
        reply,
        'The query is not supported. Check the documentation at https://developers.google.com/youtube/analytics/v2/available_reports for a list of supported queries.',
      );
    const video = /^video==([A-Za-z0-9_-]+)$/.exec(p.filters ?? '')?.[1];
    if (!video)
      return badRequest(
        reply,
        'The query is not supported. Check the documentation at https://developers.google.com/youtube/analytics/v2/available_reports for a list of supported queries.',
      );
    const start = Date.parse(`${p.startDate}T00:00:00Z`);
    const end = Date.parse(`${p.endDate}T00:00:00Z`);
    if (Number.isNaN(start) || Number.isNaN(end))
      return badRequest(reply, 'Invalid date.', Number.isNaN(start) ? 'startDate' : 'endDate');
    if (start > end)
      return badRequest(reply, 'The start date must be earlier than or equal to the end date.', 'startDate');

    const v = ytStore(state).videos.get(video);
    const rows: (string | number)[][] = [];
    const at = now();
    // Only the caller's own video has data; a day with no data (before publishing, or not yet reported) has no row.
    if (v && v.channelId === channel.id && !v.deleted) {
      const seconds = 30 + (createHash('sha256').update(video).digest()[8]! % 240);
      for (let day = Math.max(start, Math.floor(v.createdAt / DAY) * DAY); day <= end && day <= at; day += DAY) {
        const m = dayMetrics(video, v.createdAt, day, at);
        const values: Record<string, number> = {
          views: m.views,
          estimatedMinutesWatched: Math.round(((m.views * seconds) / 60) * 10) / 10,
          averageViewDuration: m.views ? seconds : 0,
          subscribersGained: Math.floor(m.views / 100),
          subscribersLost: Math.floor(m.views / 500),
          likes: m.likes,
          dislikes: 0,
          comments: m.comments,
          shares: m.shares,
        };
        rows.push([new Date(day).toISOString().slice(0, 10), ...metrics.map((k) => values[k]!)]);
      }
    }
    return ANALYTICS.checked(
      'QueryResponse',
      {
        kind: 'youtubeAnalytics#resultTable',
        columnHeaders: [
          { name: 'day', columnType: 'DIMENSION', dataType: 'STRING' },
          ...metrics.map((name) => ({ name, columnType: 'METRIC', dataType: METRICS[name] })),
        ],
        ...(rows.length ? { rows } : {}),
      },
      'YouTube Analytics',
    );
  });
}
