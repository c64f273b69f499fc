import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FaultKind } from '../faults.js';
import { registerOAuthRoutes, type OAuthSim, type OAuthUser } from '../oauth.js';
import { hangUp, type Simulator, type SimulatorState } from '../types.js';
import { registerTikTokAnalytics, STATS_FIELDS, userStats } from './analytics.js';
import { configureCreators } from './config.js';
import { registerTikTokLimits } from './limits.js';
import {
  checkChunk,
  checkPhotoInit,
  checkPostInfo,
  checkVideoSource,
  MAX_PHOTO_BYTES,
  mp4DurationSec,
  photoFormat,
  type InitBody,
} from './rules.js';
import { creatorOf, logId, moderationOf, ttError, ttOk, ttStore, type PublishStatus, type TtPublish } from './store.js';

export { externalTikTokVideo } from './analytics.js';

const POST_ID_MARK = '\u0000post-id\u0000';

export interface TikTokSimulatorOptions {
  /** Clock for processing and createdAt. Default: real time. */
  now?: () => Date;
}

/**
 * TikTok's Login Kit (OAuth v2 with `client_key`, PKCE as TikTok's desktop flow specifies it), user info,
 * and the Content Posting API v2 (creator_info/query, video/init with FILE_UPLOAD chunks or
 * PULL_FROM_URL, content/init for photos, status/fetch) on loopback, with the Display API reads analytics
 * uses (video/query, video/list, the user's stats: analytics.ts). Rules are in rules.ts, each with
 * the documentation page that states it. Posts become public when processing ends (`processingMs` after
 * the media arrived) and a status fetch reads PUBLISH_COMPLETE.
 *
 * Control: `POST /_config {creator: {privacy_level_options?, comment_disabled?, duet_disabled?,
 * stitch_disabled?, max_video_post_duration_sec?}, moderationMs?, openId?}` changes what creator_info/query
 * reports, and how long moderation holds a direct post after processing (PUBLISH_COMPLETE without a post
 * id meanwhile; null holds it until changed), for one creator with `openId`, else for all.
 */
export function tiktokSimulator(opts: TikTokSimulatorOptions = {}): Simulator {
  const now = () => (opts.now ? opts.now() : new Date());
  return {
    platform: 'tiktok',
    now: () => now().getTime(),
    faultOps: ['publish', 'upload', 'processing', 'token', 'lookup', 'insights'],
    insights: true,
    configure: (body, state) => configureCreators(ttStore(state), body),
    register(app: FastifyInstance, state: SimulatorState) {
      // https://developers.tiktok.com/doc/oauth-user-access-token-management: the token endpoint takes
      // `client_key`, answers `open_id` with the tokens, and rotates refresh tokens. PKCE challenges are the
      // hex SHA-256 of the verifier (https://developers.tiktok.com/doc/login-kit-desktop), not base64url.
      const oauth: OAuthSim = registerOAuthRoutes(app, state, {
        authorizePath: '/v2/auth/authorize/',
        tokenPath: '/v2/oauth/token/',
        revokePath: '/v2/oauth/revoke/',
        accessTokenTtlSec: 86_400,
        rotateRefreshTokens: true,
        tokenExtras: { refresh_expires_in: 31_536_000 },
        tokenExtrasFor: (user) => ({ open_id: user.id }),
        invalidGrantBody: (d) => ({ error: 'invalid_grant', error_description: d, log_id: logId() }),
        clientIdParam: 'client_key',
        challengeEncoding: 'hex',
      });
      registerTikTokLimits(app, state, oauth);

      /** The token's user, or a 401 `access_token_invalid` (https://developers.tiktok.com/doc/tiktok-api-v2-error-handling). */
      const creator = (request: FastifyRequest, reply: FastifyReply): OAuthUser | null => {
        const user = oauth.userFor(request.headers.authorization);
        if (!user)
          ttError(reply, 401, 'access_token_invalid', 'The access token is invalid or not found in the request.');
        return user;
      };
      /** JSON bodies: `Content-Type: application/json; charset=UTF-8` (every Content Posting API page). */
      const jsonBody = (request: FastifyRequest, reply: FastifyReply): InitBody | null => {
        if (!String(request.headers['content-type'] ?? '').startsWith('application/json')) {
          ttError(reply, 400, 'invalid_params', 'Content-Type must be application/json; charset=UTF-8');
          return null;
        }
        const body = request.body;
        if (!body || typeof body !== 'object' || Buffer.isBuffer(body)) {
          ttError(reply, 400, 'invalid_params', 'the body must be a JSON object');
          return null;
        }
        return body as InitBody;
      };
      /** An injected fault in TikTok's words; false for none or `ambiguous` (the caller acts, then hangs up). */
      const sendFault = (reply: FastifyReply, fault: FaultKind | null): boolean => {
        if (fault === 'rate_limited')
          ttError(reply, 429, 'rate_limit_exceeded', 'API rate limit was exceeded. Please try again later.');
        else if (fault === 'unavailable')
          ttError(reply, 500, 'internal_error', 'Something went wrong. Please try again later.');
        else if (fault === 'auth')
          ttError(reply, 401, 'access_token_invalid', 'The access token is invalid or not found in the request.');
        else if (fault === 'rejected')
          ttError(
            reply,
            403,
            'spam_risk_too_many_posts',
            'The daily post cap from the API is reached for the current user.',
          );
        else return false;
        return true;
      };

      // https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info: GET with `fields`; user.info.basic
      // gives open_id, union_id, avatar_url and display_name.
      app.get('/v2/user/info/', async (request, reply) => {
        const user = creator(request, reply);
        if (!user) return reply;
        const fields = String((request.query as Record<string, string>).fields ?? '')
          .split(',')
          .filter(Boolean);
        if (fields.length === 0) return ttError(reply, 400, 'invalid_params', 'fields is required');
        // The stats fields need user.info.stats: asked without it, TikTok refuses the call.
        const stats = fields.filter((f) => STATS_FIELDS.includes(f));
        if (stats.length && !(oauth.scopesFor(request.headers.authorization) ?? []).includes('user.info.stats')) {
          return ttError(
            reply,
            400,
            'scope_permission_missed',
            `Access token is invalid, some fields need additional scopes: ${stats.join(',')} (user.info.stats)`,
          );
        }
        const all: Record<string, unknown> = {
          open_id: user.id,
          union_id: `union-${user.id}`,
          avatar_url: `${state.baseUrl()}/avatars/${user.id}.jpeg`,
          display_name: user.name,
          username: user.username,
          ...(stats.length ? userStats(state, user.id, now().getTime()) : {}),
        };
        return ttOk({ user: Object.fromEntries(fields.filter((f) => f in all).map((f) => [f, all[f]])) });
      });

      registerTikTokAnalytics(app, state, oauth, creator, sendFault, now);

      // https://developers.tiktok.com/doc/content-posting-api-reference-query-creator-info
      app.post('/v2/post/publish/creator_info/query/', async (request, reply) => {
        const user = creator(request, reply);
        if (!user) return reply;
        const options = creatorOf(ttStore(state), user.id);
        return ttOk({
          creator_avatar_url: `${state.baseUrl()}/avatars/${user.id}.jpeg`,
          creator_username: user.username,
          creator_nickname: user.name,
          ...structuredClone(options),
        });
      });

      /** A new publish: it exists (and counts) once init answered, as on TikTok. */
      const newPublish = (
        user: OAuthUser,
        p: Omit<
          TtPublish,
          'publishId' | 'openId' | 'media' | 'arrivedAt' | 'failReason' | 'postId' | 'createdAt' | 'settled'
        >,
      ): TtPublish => {
        const pub: TtPublish = {
          loseLastAnswer: false,
          ...p,
          publishId: `v_pub_file~v2-1.${randomBytes(9).toString('hex')}`,
          openId: user.id,
          media: [],
          arrivedAt: null,
          failReason: null,
          postId: null,
          createdAt: now().getTime(),
          settled: false,
        };
        ttStore(state).publishes.set(pub.publishId, pub);
        return pub;
      };

      /** The media are all there: processing starts, and what it will find is decided now. */
      const arrived = (pub: TtPublish, failReason: string | null = null) => {
        pub.arrivedAt = now().getTime();
        if (failReason) pub.failReason = failReason;
        else if (state.faults.take('processing')) pub.failReason = 'internal';
        else pub.failReason = mediaFailure(pub, creatorOf(ttStore(state), pub.openId).max_video_post_duration_sec);
      };

      /** PULL_FROM_URL: TikTok downloads each URL (https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide, "Pull from URL"). */
      const pull = async (pub: TtPublish, urls: string[]) => {
        try {
          for (const url of urls) {
            const res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
            if (!res.ok) throw new Error(`${url} answered ${res.status}`);
            pub.media.push({
              url,
              bytes: Buffer.from(await res.arrayBuffer()),
              mimeType: res.headers.get('content-type'),
            });
          }
          arrived(pub);
        } catch {
          arrived(pub, pub.kind === 'video' ? 'video_pull_failed' : 'photo_pull_failed');
        }
      };

      const videoInit = (mode: TtPublish['mode']) => async (request: FastifyRequest, reply: FastifyReply) => {
        const user = creator(request, reply);
        if (!user) return reply;
        const body = jsonBody(request, reply);
        if (!body) return reply;
        // The inbox upload (https://developers.tiktok.com/doc/content-posting-api-reference-upload-video)
        // takes source_info only; the creator sets the rest in the app.
        const refusal =
          (mode === 'DIRECT_POST'
            ? checkPostInfo(body.post_info, creatorOf(ttStore(state), user.id), 'video')
            : null) ?? checkVideoSource(body.source_info);
        if (refusal) return ttError(reply, refusal.status, refusal.code, refusal.message);
        const fault = state.faults.take('publish');
        if (sendFault(reply, fault)) return reply;
        const s = body.source_info;
        const pub = newPublish(user, {
          kind: 'video',
          mode,
          source: s.source,
          postInfo: body.post_info ?? {},
          ...(s.source === 'FILE_UPLOAD'
            ? {
                upload: {
                  videoSize: s.video_size,
                  chunkSize: s.chunk_size,
                  totalChunks: s.total_chunk_count,
                  received: 0,
                  chunks: 0,
                  parts: [],
                  mimeType: null,
                },
              }
            : {}),
        });
        if (s.source === 'PULL_FROM_URL') await pull(pub, [s.video_url]);
        // NOTE: a FILE_UPLOAD publish happens when its last chunk arrives (before that, nothing can be
        // posted), so an ambiguous publish loses the answer to that chunk, as the YouTube simulator does.
        if (fault === 'ambiguous' && pub.upload) pub.loseLastAnswer = true;
        else if (fault === 'ambiguous') return hangUp(reply);
        return ttOk({
          publish_id: pub.publishId,
          ...(pub.upload ? { upload_url: `${state.baseUrl()}/upload/${encodeURIComponent(pub.publishId)}` } : {}),
        });
      };
      // https://developers.tiktok.com/doc/content-posting-api-reference-direct-post
      app.post('/v2/post/publish/video/init/', videoInit('DIRECT_POST'));
      app.post('/v2/post/publish/inbox/video/init/', videoInit('MEDIA_UPLOAD'));

      // The upload_url of a FILE_UPLOAD init: chunks in order, 206 until the last, then 201 (media transfer guide).
      app.put<{ Params: { publishId: string } }>('/upload/:publishId', async (request, reply) => {
        const pub = ttStore(state).publishes.get(request.params.publishId);
        if (!pub?.upload) return ttError(reply, 404, 'invalid_params', 'upload_url not found or expired');
        const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const checked = checkChunk(
          pub.upload,
          request.headers['content-range'],
          request.headers['content-type'],
          bytes.length,
        );
        if ('code' in checked) return ttError(reply, checked.status, checked.code, checked.message);
        const fault = state.faults.take('upload');
        if (fault === 'rejected') return ttError(reply, 400, 'invalid_file_upload', 'The file upload was refused.');
        if (sendFault(reply, fault)) return reply;
        const u = pub.upload;
        u.parts.push(bytes);
        u.received += bytes.length;
        u.chunks += 1;
        u.mimeType = String(request.headers['content-type']);
        const complete = u.chunks === u.totalChunks;
        if (complete) {
          pub.media.push({ bytes: Buffer.concat(u.parts), mimeType: u.mimeType });
          u.parts = [];
          arrived(pub);
        }
        if (fault === 'ambiguous' || (complete && pub.loseLastAnswer)) return hangUp(reply);
        return reply
          .status(complete ? 201 : 206)
          .header('content-range', `bytes 0-${u.received - 1}/${u.videoSize}`)
          .send();
      });

      // https://developers.tiktok.com/doc/content-posting-api-reference-photo-post
      app.post('/v2/post/publish/content/init/', async (request, reply) => {
        const user = creator(request, reply);
        if (!user) return reply;
        const body = jsonBody(request, reply);
        if (!body) return reply;
        const refusal =
          checkPhotoInit(body) ??
          (body.post_mode === 'DIRECT_POST'
            ? checkPostInfo(body.post_info, creatorOf(ttStore(state), user.id), 'photo')
            : null);
        if (refusal) return ttError(reply, refusal.status, refusal.code, refusal.message);
        const fault = state.faults.take('publish');
        if (sendFault(reply, fault)) return reply;
        const pub = newPublish(user, {
          kind: 'photo',
          mode: body.post_mode,
          source: 'PULL_FROM_URL',
          postInfo: { ...(body.post_info ?? {}), photo_cover_index: body.source_info.photo_cover_index },
        });
        await pull(pub, body.source_info.photo_images);
        if (fault === 'ambiguous') return hangUp(reply);
        return ttOk({ publish_id: pub.publishId });
      });

      // https://developers.tiktok.com/doc/content-posting-api-reference-get-video-status
      app.post('/v2/post/publish/status/fetch/', async (request, reply) => {
        const user = creator(request, reply);
        if (!user) return reply;
        const body = jsonBody(request, reply);
        if (!body) return reply;
        const pub = typeof body.publish_id === 'string' ? ttStore(state).publishes.get(body.publish_id) : undefined;
        if (!pub || pub.openId !== user.id) return ttError(reply, 400, 'invalid_params', 'publish_id not found');
        const fault = state.faults.take('lookup');
        if (sendFault(reply, fault)) return reply;
        const status = settle(state, pub, now().getTime());
        const answer = ttOk({
          status,
          ...(status === 'FAILED' ? { fail_reason: pub.failReason } : {}),
          // NOTE: "publicaly" is TikTok's own spelling of the field. The ids are int64 JSON numbers
          // (get-video-status page), beyond what a double holds: written as digits below, never via Number.
          publicaly_available_post_id: pub.postId ? [POST_ID_MARK] : [],
          uploaded_bytes: pub.upload?.received ?? 0,
          downloaded_bytes: pub.source === 'PULL_FROM_URL' ? pub.media.reduce((n, m) => n + m.bytes.length, 0) : 0,
        });
        if (fault === 'ambiguous') return hangUp(reply);
        return reply
          .type('application/json; charset=utf-8')
          .send(JSON.stringify(answer).replace(JSON.stringify(POST_ID_MARK), pub.postId ?? ''));
      });
    },
  };
}

/** What processing will find wrong with the media, as status/fetch's `fail_reason`, or null. */
function mediaFailure(pub: TtPublish, maxDurationSec: number): string | null {
  if (pub.kind === 'video') {
    // The creator's max_video_post_duration_sec applies (creator_info/query page); TikTok reports a longer
    // video as `duration_check_failed` (https://developers.tiktok.com/doc/content-posting-api-reference-get-video-status).
    const duration = mp4DurationSec(pub.media[0]?.bytes ?? Buffer.alloc(0));
    return duration !== null && duration > maxDurationSec ? 'duration_check_failed' : null;
  }
  // Photos: JPEG or WebP, at most 20 MB each (photo post page, media requirements).
  if (pub.media.some((m) => photoFormat(m.bytes) === null)) return 'file_format_check_failed';
  if (pub.media.some((m) => m.bytes.length > MAX_PHOTO_BYTES)) return 'picture_size_check_failed';
  return null;
}

/** The publish's status at `nowMs`; the first read after processing ends makes a direct post public. */
function settle(state: SimulatorState, pub: TtPublish, nowMs: number): PublishStatus {
  const waiting: PublishStatus = pub.source === 'FILE_UPLOAD' ? 'PROCESSING_UPLOAD' : 'PROCESSING_DOWNLOAD';
  if (pub.arrivedAt === null || nowMs < pub.arrivedAt + state.config.processingMs) return waiting;
  if (pub.failReason) return 'FAILED';
  if (pub.mode === 'MEDIA_UPLOAD') return 'SEND_TO_USER_INBOX';
  // Moderation: the post is complete, but public (with its id) only once moderation passed it
  // (https://developers.tiktok.com/doc/content-posting-api-reference-get-video-status).
  const store = ttStore(state);
  const moderationMs = moderationOf(store, pub.openId);
  const processed = pub.arrivedAt + state.config.processingMs;
  if (!pub.settled && (moderationMs === null || nowMs < processed + moderationMs)) return 'PUBLISH_COMPLETE';
  if (!pub.settled) {
    pub.settled = true;
    pub.postId = String(store.nextPostId++);
    const info = pub.postInfo;
    state.posts.push({
      id: pub.postId,
      text: String(pub.kind === 'photo' ? (info.description ?? info.title ?? '') : (info.title ?? '')),
      media: pub.media.map((m) => ({
        type: pub.kind === 'video' ? 'video' : 'image',
        ...(m.url ? { url: m.url } : {}),
        ...(m.mimeType ? { mimeType: m.mimeType } : {}),
        size: m.bytes.length,
      })),
      replyTo: null,
      author: pub.openId,
      destination: null,
      createdAt: new Date(nowMs).toISOString(),
      extra: {
        publishId: pub.publishId,
        mediaType: pub.kind === 'video' ? 'VIDEO' : 'PHOTO',
        source: pub.source,
        chunks: pub.upload?.totalChunks ?? null,
        durationSec: pub.kind === 'video' ? mp4DurationSec(pub.media[0].bytes) : null,
        ...info,
      },
    });
    // Recorded: the bytes are not needed any more.
    for (const m of pub.media) m.bytes = Buffer.alloc(0);
  }
  return 'PUBLISH_COMPLETE';
}
