import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FaultKind } from '../faults.js';
import { metricsFor, subscribersOf } from '../metrics.js';
import type { OAuthSim, OAuthUser } from '../oauth.js';
import { hangUp, type InspectedPost, type SimulatorState } from '../types.js';
import { ttError, ttOk, ttStore } from './store.js';

/*
 * TikTok's Display API reads on loopback, as its pages state them:
 * - `POST /v2/video/query/?fields=` with `{filters: {video_ids}}` (https://developers.tiktok.com/doc/tiktok-api-v2-video-query):
 *   scope video.list, `fields` from the Video Object's list, 1 to 20 ids; only the caller's own videos
 *   come back (others are left out);
 * - `POST /v2/video/list/?fields=` with `{max_count, cursor}` (https://developers.tiktok.com/doc/tiktok-api-v2-video-list):
 *   the caller's public videos newest first, max_count at most 20 (default 10), `cursor` a time in ms
 *   (videos posted before it), answered with the next `cursor` and `has_more`;
 * - the stats fields of `GET /v2/user/info/` (follower_count, following_count, likes_count, video_count)
 *   need user.info.stats (https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info).
 * A call without its scope is 401 `scope_not_authorized`; a field whose scope is missing is 400
 * `scope_permission_missed` (https://developers.tiktok.com/doc/tiktok-api-v2-error-handling).
 * The counts are the sandbox's (metrics.ts): grown with the video's age, or set with `POST /_metrics
 * {postId: <video id>}`; followers with `{postId: <open_id>, metrics: {followers}}`.
 */

/** The Video Object's fields (the query and list pages). */
const VIDEO_FIELDS = [
  'id',
  'create_time',
  'cover_image_url',
  'share_url',
  'video_description',
  'duration',
  'height',
  'width',
  'title',
  'embed_html',
  'embed_link',
  'like_count',
  'comment_count',
  'share_count',
  'view_count',
];
/** User Object fields that need user.info.stats. */
export const STATS_FIELDS = ['follower_count', 'following_count', 'likes_count', 'video_count'];
const MAX_IDS = 20;
const MAX_COUNT = 20;

type Creator = (request: FastifyRequest, reply: FastifyReply) => OAuthUser | null;
type SendFault = (reply: FastifyReply, fault: FaultKind | null) => boolean;

/** The creator's public videos, newest first. */
function videosOf(state: SimulatorState, openId: string): InspectedPost[] {
  return state.posts
    .filter((p) => p.author === openId && !p.deleted)
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
}

/** A video posted in the TikTok app (outside Herald): what video/list then lists. */
export function externalTikTokVideo(state: SimulatorState, openId: string, text: string, at: number): string {
  const id = String(ttStore(state).nextPostId++);
  state.posts.push({
    id,
    text,
    media: [{ type: 'video' }],
    replyTo: null,
    author: openId,
    destination: null,
    createdAt: new Date(at).toISOString(),
    extra: { mediaType: 'VIDEO', external: true },
  });
  return id;
}

/** A User Object's stats fields for `openId`. */
export function userStats(state: SimulatorState, openId: string, nowMs: number): Record<string, number> {
  const videos = videosOf(state, openId);
  return {
    follower_count: subscribersOf(state, openId),
    // Whom the creator follows: a fixed number from the open id (nothing in the sandbox follows).
    following_count: createHash('sha256').update(`following:${openId}`).digest()[0]! % 150,
    likes_count: videos.reduce((sum, v) => sum + metricsFor(state, v.id, Date.parse(v.createdAt), nowMs).likes, 0),
    video_count: videos.length,
  };
}

/** A video query or list body: the fields read, each checked before use (numbers are compared as sent). */
interface VideoRequestBody {
  filters?: { video_ids?: unknown };
  max_count?: number;
  cursor?: number;
}

export function registerTikTokAnalytics(
  app: FastifyInstance,
  state: SimulatorState,
  oauth: OAuthSim,
  creator: Creator,
  sendFault: SendFault,
  now: () => Date,
): void {
  /**
   * What both video routes check, in TikTok's order: the creator, whose token holds video.list; the
   * `fields` query parameter; a JSON object body. Null once TikTok's error has been sent.
   */
  const videoRequest = (
    request: FastifyRequest,
    reply: FastifyReply,
  ): { user: OAuthUser; fields: string[]; body: VideoRequestBody } | null => {
    const user = creator(request, reply);
    if (!user) return null;
    if (!(oauth.scopesFor(request.headers.authorization) ?? []).includes('video.list')) {
      ttError(
        reply,
        401,
        'scope_not_authorized',
        'The user did not authorize the scope required for completing this request (video.list).',
      );
      return null;
    }
    const fields = String((request.query as Record<string, string>).fields ?? '')
      .split(',')
      .filter(Boolean);
    const unknown = fields.filter((f) => !VIDEO_FIELDS.includes(f));
    if (fields.length === 0 || unknown.length) {
      ttError(
        reply,
        400,
        'invalid_params',
        fields.length ? `Invalid fields: ${unknown.join(',')}` : 'fields is required',
      );
      return null;
    }
    const body = request.body;
    if (
      !String(request.headers['content-type'] ?? '').startsWith('application/json') ||
      !body ||
      typeof body !== 'object' ||
      Buffer.isBuffer(body)
    ) {
      ttError(reply, 400, 'invalid_params', 'the body must be a JSON object (Content-Type: application/json)');
      return null;
    }
    return { user, fields, body: body as VideoRequestBody };
  };
  const faulted = (reply: FastifyReply, op: 'insights' | 'lookup'): boolean => {
    const fault = state.faults.take(op);
    if (sendFault(reply, fault)) return true;
    if (fault === 'ambiguous') {
      hangUp(reply);
      return true;
    }
    return false;
  };
  const videoJson = (v: InspectedPost, fields: string[], user: OAuthUser, nowMs: number) => {
    const m = metricsFor(state, v.id, Date.parse(v.createdAt), nowMs);
    const all: Record<string, unknown> = {
      id: v.id,
      create_time: Math.floor(Date.parse(v.createdAt) / 1000),
      cover_image_url: `${state.baseUrl()}/covers/${v.id}.jpeg`,
      share_url: `https://www.tiktok.com/@${encodeURIComponent(user.username)}/video/${v.id}`,
      video_description: v.text,
      duration: typeof v.extra?.durationSec === 'number' ? Math.round(v.extra.durationSec) : 0,
      height: 1920,
      width: 1080,
      title: v.text,
      embed_html: `<blockquote class="tiktok-embed" data-video-id="${v.id}"></blockquote>`,
      embed_link: `https://www.tiktok.com/embed/v2/${v.id}`,
      like_count: m.likes,
      comment_count: m.comments,
      share_count: m.shares,
      view_count: m.views,
    };
    return Object.fromEntries(fields.map((f) => [f, all[f]]));
  };

  app.post('/v2/video/query/', async (request, reply) => {
    const checked = videoRequest(request, reply);
    if (!checked) return reply;
    const { user, fields, body } = checked;
    const ids = body.filters?.video_ids;
    if (!Array.isArray(ids) || ids.length === 0 || ids.some((id) => typeof id !== 'string' || !/^\d+$/.test(id))) {
      return ttError(reply, 400, 'invalid_params', 'filters.video_ids must be a non-empty list of video id strings');
    }
    if (ids.length > MAX_IDS)
      return ttError(reply, 400, 'invalid_params', `filters.video_ids can include up to ${MAX_IDS} video ids`);
    if (faulted(reply, 'insights')) return reply;
    const own = new Map(videosOf(state, user.id).map((v) => [v.id, v]));
    const nowMs = now().getTime();
    const videos = [...new Set(ids as string[])]
      .filter((id) => own.has(id))
      .map((id) => videoJson(own.get(id)!, fields, user, nowMs));
    return ttOk({ videos });
  });

  app.post('/v2/video/list/', async (request, reply) => {
    const checked = videoRequest(request, reply);
    if (!checked) return reply;
    const { user, fields, body } = checked;
    const max = body.max_count ?? 10;
    if (!Number.isInteger(max) || max < 1 || max > MAX_COUNT)
      return ttError(reply, 400, 'invalid_params', `max_count must be an integer from 1 to ${MAX_COUNT}`);
    if (body.cursor !== undefined && (!Number.isInteger(body.cursor) || body.cursor < 0))
      return ttError(reply, 400, 'invalid_params', 'cursor must be a UTC Unix timestamp in milliseconds');
    if (faulted(reply, 'lookup')) return reply;
    const before = body.cursor ?? Number.MAX_SAFE_INTEGER;
    const all = videosOf(state, user.id).filter((v) => Date.parse(v.createdAt) < before);
    const page = all.slice(0, max);
    const nowMs = now().getTime();
    const last = page.at(-1);
    return ttOk({
      videos: page.map((v) => videoJson(v, fields, user, nowMs)),
      cursor: last ? Date.parse(last.createdAt) : before === Number.MAX_SAFE_INTEGER ? 0 : before,
      has_more: all.length > page.length,
    });
  });
}
