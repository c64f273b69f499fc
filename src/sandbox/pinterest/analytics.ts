import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { grownMetrics, metricsFor, type SandboxMetrics } from '../metrics.js';
import type { OAuthSim, OAuthUser } from '../oauth.js';
import type { OpenApiDocument } from '../openapi.js';
import { hangUp, type SimulatorState } from '../types.js';
import { nextPinId, pinError, pinJson, pinStore, pinterestUserId, sendPinFault, type PinRecord } from './store.js';

/*
 * Pinterest's reads for analytics on loopback (the OpenAPI hooks in index.ts have checked parameters and
 * will check the answers):
 * - `GET /v5/pins/{pin_id}/analytics` (https://developers.pinterest.com/docs/api/v5/pins-analytics):
 *   the requested metric types over start_date..end_date (`summary_metrics`, `daily_metrics`), comments
 *   and reactions as `lifetime_metrics`, keyed `all` (no split). Dates as the parameters' descriptions
 *   say: start_date at most 90 days back from today, end_date at most 90 days past start_date;
 * - `GET /v5/pins`: the user's own pins, newest first, paged with `bookmark`;
 * - `follower_count` of `GET /v5/user_account` (index.ts) is the sandbox's followers (`subscribersOf`).
 * The numbers are the sandbox's (metrics.ts): grown with the pin's age, or set with `POST /_metrics
 * {postId: <pin id>}`. Clicks are split into PIN_CLICK and OUTBOUND_CLICK (a quarter of them), which
 * add up to the sandbox's `clicks`; video metrics exist for video pins only.
 * Each operation needs the scopes its `security` lists in the document; a token without them gets the
 * 401 code 3 Pinterest answers (pinterest/api-quickstart#97).
 */

const DAY = 86_400_000;
const MAX_LOOKBACK_DAYS = 90;
const VIDEO_ONLY = new Set([
  'VIDEO_MRC_VIEW',
  'VIDEO_10S_VIEW',
  'QUARTILE_95_PERCENT_VIEW',
  'VIDEO_V50_WATCH_TIME',
  'VIDEO_START',
  'VIDEO_AVG_WATCH_TIME',
]);
const LIFETIME = new Set(['TOTAL_COMMENTS', 'TOTAL_REACTIONS']);

/** One metric type's value from the sandbox's numbers of a pin. */
function metricValue(type: string, m: SandboxMetrics): number {
  const outbound = Math.floor(m.clicks / 4);
  switch (type) {
    case 'IMPRESSION':
      return m.impressions;
    case 'SAVE':
      return m.saves;
    case 'PIN_CLICK':
      return m.clicks - outbound;
    case 'OUTBOUND_CLICK':
      return outbound;
    case 'SAVE_RATE':
      return m.impressions ? Math.round((m.saves / m.impressions) * 10_000) / 10_000 : 0;
    case 'TOTAL_COMMENTS':
      return m.comments;
    case 'TOTAL_REACTIONS':
      return m.likes;
    case 'VIDEO_MRC_VIEW':
    case 'VIDEO_START':
      return m.views;
    case 'VIDEO_10S_VIEW':
      return Math.floor(m.views / 2);
    case 'QUARTILE_95_PERCENT_VIEW':
      return Math.floor(m.views / 5);
    case 'VIDEO_V50_WATCH_TIME':
      return m.views * 4_000;
    case 'VIDEO_AVG_WATCH_TIME':
      return m.views ? 4_000 : 0;
    default:
      // USER_FOLLOW, PROFILE_VISIT: the sandbox has no such numbers.
      return 0;
  }
}

const pick = (types: string[], m: SandboxMetrics) => Object.fromEntries(types.map((t) => [t, metricValue(t, m)]));
const dayStart = (ms: number) => Math.floor(ms / DAY) * DAY;
const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A pin made outside Herald (in the Pinterest app) on the user's first board: what `GET /v5/pins` then lists. */
export function externalPin(state: SimulatorState, ownerId: string, boardId: string, text: string, at: number): string {
  const store = pinStore(state);
  const pin: PinRecord = {
    id: nextPinId(store),
    ownerId,
    boardId,
    title: null,
    description: text,
    link: null,
    altText: null,
    media: { kind: 'image', urls: [] },
    createdAt: new Date(at).toISOString().replace(/\.\d+Z$/, 'Z'),
    deleted: false,
  };
  store.pins.set(pin.id, pin);
  state.posts.push({
    id: pin.id,
    text,
    media: [],
    replyTo: null,
    author: ownerId,
    createdAt: pin.createdAt,
    destination: boardId,
    extra: { external: true },
  });
  return pin.id;
}

type User = (request: FastifyRequest, reply: FastifyReply) => OAuthUser | null;

/**
 * A reader of the GET operation at the document's `path`: the user, when the token holds every scope the
 * operation's `security` lists; else null after Pinterest's 401 code 3.
 */
export function scopedReader(spec: OpenApiDocument, oauth: OAuthSim, user: User) {
  return (request: FastifyRequest, reply: FastifyReply, path: string): OAuthUser | null => {
    const u = user(request, reply);
    if (!u) return null;
    const security = spec.doc.paths[path].get.security as Record<string, string[]>[];
    const needed = security.find((s) => s.pinterest_oauth2)?.pinterest_oauth2 ?? [];
    const granted = oauth.scopesFor(request.headers.authorization) ?? [];
    if (needed.some((s) => !granted.includes(s))) {
      pinError(
        reply,
        401,
        3,
        'Your token does not have sufficient permissions to perform this operation. Please ensure your token is authorized with the correct set of scopes.',
      );
      return null;
    }
    return u;
  };
}

export function registerPinterestAnalytics(
  app: FastifyInstance,
  state: SimulatorState,
  spec: OpenApiDocument,
  oauth: OAuthSim,
  user: User,
  now: () => Date,
): void {
  const reader = scopedReader(spec, oauth, user);
  /** Runs the fault of `op`; true when an answer was sent. */
  const faulted = (reply: FastifyReply, op: 'insights' | 'lookup'): boolean => {
    const fault = state.faults.take(op);
    if (sendPinFault(reply, fault, 'Invalid pins analytics parameters.')) return true;
    if (fault === 'ambiguous') {
      hangUp(reply);
      return true;
    }
    return false;
  };

  app.get<{ Params: { pin_id: string } }>('/v5/pins/:pin_id/analytics', async (request, reply) => {
    const u = reader(request, reply, '/pins/{pin_id}/analytics');
    if (!u) return reply;
    const pin = pinStore(state).pins.get(request.params.pin_id);
    if (!pin || pin.deleted) return pinError(reply, 404, 50, 'Pin not found.');
    if (pin.ownerId !== pinterestUserId(u)) return pinError(reply, 403, 403, 'Not authorized to access board or Pin.');
    const q = request.query as { start_date: string; end_date: string; metric_types: string; split_field?: string };
    const nowMs = now().getTime();
    const start = Date.parse(`${q.start_date}T00:00:00Z`);
    const end = Date.parse(`${q.end_date}T00:00:00Z`);
    const invalid = (why: string) => pinError(reply, 400, 400, `Invalid pins analytics parameters: ${why}`);
    if (Number.isNaN(start) || Number.isNaN(end)) return invalid('start_date and end_date must be real dates');
    if (start > end) return invalid('start_date must be on or before end_date');
    if (start < dayStart(nowMs) - MAX_LOOKBACK_DAYS * DAY)
      return invalid(`start_date cannot be more than ${MAX_LOOKBACK_DAYS} days back from today`);
    if (end > start + MAX_LOOKBACK_DAYS * DAY)
      return invalid(`end_date cannot be more than ${MAX_LOOKBACK_DAYS} days past start_date`);
    if (q.split_field && q.split_field !== 'NO_SPLIT') return invalid('only NO_SPLIT is served by this sandbox');
    if (faulted(reply, 'insights')) return reply;

    const video = pin.media.kind === 'video';
    const types = [...new Set(q.metric_types.split(','))].filter((t) => video || !VIDEO_ONLY.has(t));
    const periodic = types.filter((t) => !LIFETIME.has(t));
    const lifetime = types.filter((t) => LIFETIME.has(t));
    const created = Date.parse(pin.createdAt);
    // The period's total: the pin's whole life so far when the period covers it (the numbers `_metrics`
    // set count), else what grew between the period's ends.
    const from = Math.max(start, created);
    const to = Math.min(end + DAY, nowMs);
    let summary: SandboxMetrics;
    if (from <= created && to >= nowMs) summary = metricsFor(state, pin.id, created, nowMs);
    else {
      const a = grownMetrics(pin.id, created, Math.min(from, to));
      const b = grownMetrics(pin.id, created, to);
      summary = Object.fromEntries(
        Object.keys(b).map((k) => [k, Math.max(0, b[k as keyof SandboxMetrics] - a[k as keyof SandboxMetrics])]),
      ) as SandboxMetrics;
    }
    const daily = [];
    for (let d = start; d <= end; d += DAY) {
      if (d + DAY <= created) {
        daily.push({ date: ymd(d), data_status: 'BEFORE_PIN_CREATED', metrics: {} });
        continue;
      }
      const dayFrom = Math.max(d, created);
      const dayTo = Math.min(d + DAY, nowMs);
      const a = grownMetrics(pin.id, created, Math.min(dayFrom, dayTo));
      const b = grownMetrics(pin.id, created, dayTo);
      const m = Object.fromEntries(
        Object.keys(b).map((k) => [k, Math.max(0, b[k as keyof SandboxMetrics] - a[k as keyof SandboxMetrics])]),
      ) as SandboxMetrics;
      daily.push({ date: ymd(d), data_status: d > nowMs ? 'PROCESSING' : 'READY', metrics: pick(periodic, m) });
    }
    return {
      all: {
        daily_metrics: daily,
        summary_metrics: pick(periodic, summary),
        lifetime_metrics: pick(lifetime, metricsFor(state, pin.id, created, nowMs)),
      },
    };
  });

  app.get('/v5/pins', async (request, reply) => {
    const u = reader(request, reply, '/pins');
    if (!u) return reply;
    if (faulted(reply, 'lookup')) return reply;
    const q = request.query as { page_size?: string; bookmark?: string };
    const size = Number(q.page_size ?? 25);
    const start = q.bookmark ? Number(Buffer.from(q.bookmark, 'base64url').toString('utf8')) || 0 : 0;
    const id = pinterestUserId(u);
    // Every pin the user made, newest first. NOTE: the sandbox has no repins, so `pin_filter` changes nothing.
    const all = [...pinStore(state).pins.values()]
      .filter((p) => p.ownerId === id && !p.deleted)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    const page = all.slice(start, start + size);
    return {
      items: page.map((p) => pinJson(p, u.username)),
      bookmark: start + size < all.length ? Buffer.from(String(start + size)).toString('base64url') : null,
    };
  });
}
