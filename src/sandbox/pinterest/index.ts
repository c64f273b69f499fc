import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { subscribersOf } from '../metrics.js';
import { formBody, registerOAuthRoutes, type OAuthSim } from '../oauth.js';
import { parseMultipart } from '../twitter/multipart.js';
import { hangUp, markDeleted, type Simulator, type SimulatorState } from '../types.js';
import { registerPinterestAnalytics, scopedReader } from './analytics.js';
import { registerPinterestBoards } from './boards.js';
import { documentPath, pinterestOpenApi } from './openapi.js';
import { createPin, updatePin } from './pins.js';
import { checkFormUpload, s3Error, uploadParameters } from './s3-form.js';
import {
  boardJson,
  boardsOf,
  nextPinId,
  pinError,
  pinJson,
  pinStore,
  pinterestUserId,
  pinUser,
  sendPinFault,
  settleMedia,
} from './store.js';
import { registerPinterestLimits } from './limits.js';

export { externalPin } from './analytics.js';

export interface PinterestSimulatorOptions {
  /** Clock for processing and created_at. Default: real time. */
  now?: () => Date;
}

/**
 * Pinterest API v5 on loopback: OAuth (authorization code, Basic client authentication, continuous
 * refresh), the user account, boards, pins (image by URL or base64, several images, video by media id),
 * the video media registration with its S3 form upload and processing, and the reads analytics uses
 * (pin analytics and the user's pins: analytics.ts; follower_count). Every request to a documented
 * operation is checked against Pinterest's official OpenAPI document before anything else, and every
 * answer after: a request that breaks it gets Pinterest's 400, an answer that breaks it becomes a 500
 * naming the violation (a simulator bug, never hidden).
 */
export function pinterestSimulator(opts: PinterestSimulatorOptions = {}): Simulator {
  const now = () => (opts.now ? opts.now() : new Date());
  return {
    platform: 'pinterest',
    now: () => now().getTime(),
    faultOps: ['publish', 'upload', 'processing', 'token', 'lookup', 'delete', 'destinations', 'insights'],
    insights: true,
    configure(body, state) {
      if (body.pinUpdate !== undefined && typeof body.pinUpdate !== 'boolean')
        return { error: 'pinUpdate must be a boolean' };
      const store = pinStore(state);
      if (typeof body.pinUpdate === 'boolean') store.pinUpdate = body.pinUpdate;
      return { pinUpdate: store.pinUpdate };
    },
    register(app: FastifyInstance, state: SimulatorState) {
      const spec = pinterestOpenApi();

      app.addHook('preHandler', async (request, reply) => {
        const path = documentPath(request.routeOptions.url ?? '');
        if (!path || !spec.has(request.method, path)) return;
        // The token endpoint's form body arrives raw; the document describes its fields.
        const body = Buffer.isBuffer(request.body) ? formBody(request) : request.body;
        const problems = spec.operation(request.method, path).validate({
          path: request.params as Record<string, string>,
          query: request.query as Record<string, unknown>,
          body,
        });
        if (problems.length > 0) {
          const detail = problems
            .map((p) => `${p.parameter === 'body' ? 'body' : `'${p.parameter.replace(/^body\./, '')}'`} ${p.message}`)
            .join('; ');
          return pinError(reply, 400, 1, `Invalid request: ${detail}`);
        }
        // https://developers.pinterest.com/docs/getting-started/set-up-authentication-and-authorization/:
        // the token endpoint authenticates the app with HTTP Basic (security `basic` in the document).
        const security = spec.doc.paths[path][request.method.toLowerCase()].security as
          | Record<string, unknown>[]
          | undefined;
        if (security?.some((s) => 'basic' in s) && !/^Basic\s+\S+/i.test(request.headers.authorization ?? '')) {
          return pinError(reply, 401, 2, 'Authentication failed.');
        }
      });

      app.addHook('onSend', async (request, reply, payload) => {
        const path = documentPath(request.routeOptions.url ?? '');
        if (!path || !spec.has(request.method, path)) return payload;
        const json = String(reply.getHeader('content-type') ?? '').includes('json');
        const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
        const check = spec.response(request.method, path, reply.statusCode);
        let body: unknown = text === '' ? undefined : text;
        if (json && text) body = JSON.parse(text);
        const problems = check
          ? check(body)
          : [{ parameter: 'response', message: `HTTP ${reply.statusCode} is not documented` }];
        if (problems.length === 0) return payload;
        reply.code(500).header('content-type', 'application/json; charset=utf-8');
        const detail = problems.map((p) => `${p.parameter} ${p.message}`).join('; ');
        return JSON.stringify({
          code: 0,
          message: `The Pinterest simulator answered outside the OpenAPI document (HTTP ${reply.statusCode} of ${request.method} ${path}): ${detail}`,
        });
      });

      const oauth: OAuthSim = registerOAuthRoutes(app, state, {
        authorizePath: '/oauth/',
        tokenPath: '/v5/oauth/token',
        // Access tokens last 30 days; continuous refresh tokens 60 days, a new one with every refresh.
        accessTokenTtlSec: 2_592_000,
        rotateRefreshTokens: true,
        tokenExtras: (grantType) => ({
          response_type: grantType,
          refresh_token_expires_in: 5_184_000,
          refresh_token_expires_at: Math.floor(now().getTime() / 1000) + 5_184_000,
        }),
        basicClientAuth: true,
        // A dead grant: 401 {code: 283} (pinterest/pinterest-python-sdk#114).
        invalidGrantStatus: 401,
        errorBody: (error, description) =>
          error === 'invalid_grant'
            ? { code: 283, message: 'The authorization grant is invalid' }
            : { code: error === 'rate_limited' ? 8 : 1, message: description },
      });
      registerPinterestLimits(app, state, oauth);

      const user = (request: FastifyRequest, reply: FastifyReply) => pinUser(request, reply, oauth);

      const reader = scopedReader(spec, oauth, user);

      app.get('/v5/user_account', async (request, reply) => {
        const u = reader(request, reply, '/user_account');
        if (!u) return reply;
        const store = pinStore(state);
        const id = pinterestUserId(u);
        return {
          account_type: 'BUSINESS',
          id,
          username: u.username,
          business_name: u.name,
          profile_image: `${state.baseUrl()}/avatars/${id}.jpg`,
          website_url: '',
          about: '',
          board_count: boardsOf(store, u).length,
          pin_count: [...store.pins.values()].filter((p) => p.ownerId === id && !p.deleted).length,
          // The sandbox's followers: `POST /_metrics {postId: <user id>, metrics: {followers}}` sets them.
          follower_count: subscribersOf(state, id),
          following_count: 0,
          monthly_views: 0,
        };
      });

      registerPinterestAnalytics(app, state, spec, oauth, user, now);
      registerPinterestBoards(app, state, spec, oauth, user, now);

      app.get('/v5/boards', async (request, reply) => {
        const u = user(request, reply);
        if (!u) return reply;
        const fault = state.faults.take('destinations');
        if (sendPinFault(reply, fault, 'Boards cannot be listed.')) return reply;
        if (fault === 'ambiguous') return hangUp(reply);
        const q = request.query as { page_size?: string; bookmark?: string; privacy?: string };
        const size = Number(q.page_size ?? 25);
        const start = q.bookmark ? Number(Buffer.from(q.bookmark, 'base64url').toString('utf8')) || 0 : 0;
        const all = boardsOf(pinStore(state), u).filter(
          (b) => !q.privacy || q.privacy === 'ALL' || b.privacy === q.privacy,
        );
        const page = all.slice(start, start + size);
        const more = start + size < all.length;
        return {
          items: page.map((b) => boardJson(b, u.username)),
          bookmark: more ? Buffer.from(String(start + size)).toString('base64url') : null,
        };
      });

      app.get<{ Params: { board_id: string } }>('/v5/boards/:board_id/pins', async (request, reply) => {
        const u = user(request, reply);
        if (!u) return reply;
        const store = pinStore(state);
        const board =
          boardsOf(store, u).find((b) => b.id === request.params.board_id) ?? store.boards.get(request.params.board_id);
        if (!board || (board.ownerId !== pinterestUserId(u) && board.privacy !== 'PUBLIC'))
          return pinError(reply, 404, 40, 'Board not found.');
        const fault = state.faults.take('lookup');
        if (sendPinFault(reply, fault, 'Pins cannot be listed.')) return reply;
        if (fault === 'ambiguous') return hangUp(reply);
        const q = request.query as { page_size?: string; bookmark?: string };
        const size = Number(q.page_size ?? 25);
        const start = q.bookmark ? Number(Buffer.from(q.bookmark, 'base64url').toString('utf8')) || 0 : 0;
        // Newest first, as the board shows them.
        const all = [...store.pins.values()].filter((p) => p.boardId === board.id && !p.deleted).reverse();
        const page = all.slice(start, start + size);
        return {
          items: page.map((p) => pinJson(p, u.username)),
          bookmark: start + size < all.length ? Buffer.from(String(start + size)).toString('base64url') : null,
        };
      });

      // https://developers.pinterest.com/docs/api-features/creating-boards-and-pins/#creating-video-pins:
      // register, upload to the returned form, poll the status, then create the pin with the media id.
      app.post('/v5/media', async (request, reply) => {
        const u = user(request, reply);
        if (!u) return reply;
        const store = pinStore(state);
        const id = nextPinId(store);
        const ownerId = pinterestUserId(u);
        const fields = uploadParameters(id, ownerId, now());
        store.media.set(id, {
          id,
          ownerId,
          fields,
          status: 'registered',
          readyAt: null,
          fails: false,
          size: 0,
          contentType: null,
        });
        return reply.status(201).send({
          media_id: id,
          media_type: 'video',
          upload_url: `${state.baseUrl()}/pinterest-media-upload/`,
          upload_parameters: fields,
        });
      });

      app.post('/pinterest-media-upload/', async (request, reply) => {
        const type = String(request.headers['content-type'] ?? '');
        const parts =
          Buffer.isBuffer(request.body) && type.startsWith('multipart/form-data')
            ? parseMultipart(request.body, type)
            : null;
        if (!parts)
          return s3Error(
            reply,
            412,
            'PreconditionFailed',
            'Bucket POST must be of the enclosure-type multipart/form-data',
          );
        const key = parts.find((p) => p.name === 'key')?.data.toString('utf8');
        const media = [...pinStore(state).media.values()].find((m) => m.fields.key === key);
        if (!media) return s3Error(reply, 403, 'AccessDenied', 'Access Denied');
        const fault = state.faults.take('upload');
        // S3 throttles with 503 SlowDown (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html).
        if (fault === 'rate_limited') return s3Error(reply, 503, 'SlowDown', 'Please reduce your request rate.');
        if (fault === 'unavailable')
          return s3Error(reply, 500, 'InternalError', 'We encountered an internal error. Please try again.');
        if (fault === 'rejected' || fault === 'auth')
          return s3Error(reply, 403, 'AccessDenied', 'Invalid according to Policy: Policy expired.');
        const refused = checkFormUpload(parts, media.fields, now());
        if (refused) return s3Error(reply, ...refused);
        const file = parts.find((p) => p.name === 'file')!;
        media.size = file.data.length;
        media.contentType = file.contentType;
        media.status = 'processing';
        media.readyAt = now().getTime() + state.config.processingMs;
        media.fails = state.faults.take('processing') !== null;
        if (fault === 'ambiguous') return hangUp(reply);
        return reply.status(204).send();
      });

      app.get<{ Params: { media_id: string } }>('/v5/media/:media_id', async (request, reply) => {
        const u = user(request, reply);
        if (!u) return reply;
        const media = pinStore(state).media.get(request.params.media_id);
        if (!media || media.ownerId !== pinterestUserId(u)) return pinError(reply, 404, 404, 'Media not found.');
        settleMedia(media, now().getTime());
        return { media_id: media.id, media_type: 'video', status: media.status };
      });

      app.post('/v5/pins', async (request, reply) => {
        const u = user(request, reply);
        if (!u) return reply;
        return createPin(request, reply, state, u, now);
      });

      app.patch<{ Params: { pin_id: string } }>('/v5/pins/:pin_id', async (request, reply) => {
        const u = user(request, reply);
        if (!u) return reply;
        return updatePin(request.params.pin_id, request, reply, state, u);
      });

      app.delete<{ Params: { pin_id: string } }>('/v5/pins/:pin_id', async (request, reply) => {
        const u = user(request, reply);
        if (!u) return reply;
        const pin = pinStore(state).pins.get(request.params.pin_id);
        if (!pin || pin.deleted) return pinError(reply, 404, 50, 'Pin not found.');
        if (pin.ownerId !== pinterestUserId(u))
          return pinError(reply, 403, 29, 'You are not permitted to access that resource.');
        const fault = state.faults.take('delete');
        if (sendPinFault(reply, fault, 'The Pin cannot be deleted.')) return reply;
        pin.deleted = true;
        markDeleted(state, pin.id);
        if (fault === 'ambiguous') return hangUp(reply);
        return reply.status(204).send();
      });
    },
  };
}
