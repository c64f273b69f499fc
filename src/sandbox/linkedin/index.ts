import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { registerLinkedInLimits } from './limits.js';
import { registerOAuthRoutes, type OAuthSim } from '../oauth.js';
import type { FaultKind } from '../faults.js';
import { hangUp, markDeleted, type Simulator, type SimulatorState } from '../types.js';
import { registerLinkedInAnalytics } from './analytics.js';
import { registerLinkedInComments } from './comments.js';
import { registerLinkedInLookups } from './lookups.js';
import { notifyMentions, registerLinkedInMentions } from './mentions.js';
import { type LiPostBody, validatePost } from './posts.js';
import { canActAs, checkRestHeaders, liError, liStore, member, nextLiId, settleAsset, type LiAsset } from './store.js';

export { addLinkedInOrganization, SANDBOX_ORGANIZATION, SANDBOX_PERSON } from './store.js';
export { externalLinkedInPost } from './posts.js';

export interface LinkedInSimulatorOptions {
  /** Clock for version checks and createdAt. Default: real time. */
  now?: () => Date;
}

/** Video parts are 4 MiB byte ranges, as LinkedIn hands them out. */
const VIDEO_PART = 4 * 1024 * 1024;

/**
 * LinkedIn's OAuth, OpenID userinfo and the versioned `/rest/*` Posts, Images, Documents, Videos,
 * Comments, Reactions and organization APIs on loopback (comments.ts and mentions.ts: the inbox). Every `/rest/*` call must carry a live
 * `LinkedIn-Version` and `X-Restli-Protocol-Version: 2.0.0`; post bodies are checked field by field.
 */
/**
 * An initializeUpload or finalizeUpload action body: the fields read, typed as the handler's checks
 * require them (owner a string, uploadedPartIds an array matching the parts) before they are used.
 */
interface UploadActionBody {
  initializeUploadRequest?: { owner: string; [key: string]: unknown };
  finalizeUploadRequest?: { video: string; uploadedPartIds: string[] };
}

export function linkedInSimulator(opts: LinkedInSimulatorOptions = {}): Simulator {
  const now = () => (opts.now ? opts.now() : new Date());
  return {
    platform: 'linkedin',
    now: () => now().getTime(),
    insights: true,
    faultOps: ['publish', 'upload', 'processing', 'token', 'lookup', 'delete', 'comment', 'destinations'],
    register(app: FastifyInstance, state: SimulatorState) {
      const oauth: OAuthSim = registerOAuthRoutes(app, state, {
        authorizePath: '/oauth/v2/authorization',
        tokenPath: '/oauth/v2/accessToken',
        revokePath: '/oauth/v2/revoke',
        // 60-day access tokens; refresh tokens (programmatic refresh) last a year and do not rotate.
        accessTokenTtlSec: 5_184_000,
        rotateRefreshTokens: false,
        tokenExtras: { refresh_token_expires_in: 31_536_000 },
      });
      registerLinkedInLimits(app, state, oauth);

      /** Common preamble of /rest/* routes: headers, then the member. */
      const rest = (request: Parameters<typeof member>[0], reply: FastifyReply) => {
        if (!checkRestHeaders(request, reply, now())) return null;
        return member(request, reply, oauth);
      };

      /** Answers an injected fault as LinkedIn does; false for none or `ambiguous` (the caller acts, then hangs up). */
      const sendFault = (
        reply: FastifyReply,
        fault: FaultKind | null,
        rejection: string,
        code = 'UNPROCESSABLE_ENTITY',
      ): boolean => {
        if (fault === 'rate_limited') {
          liError(reply, 429, 'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.', {
            code: 'TOO_MANY_REQUESTS',
            serviceErrorCode: 101,
          });
        } else if (fault === 'unavailable') liError(reply, 503, 'Service Unavailable');
        else if (fault === 'auth')
          liError(reply, 401, 'The token used in the request has been revoked by the user', {
            serviceErrorCode: 65601,
            code: 'REVOKED_ACCESS_TOKEN',
          });
        else if (fault === 'rejected') liError(reply, 422, rejection, { code });
        else return false;
        return true;
      };

      app.get('/v2/userinfo', async (request, reply) => {
        const user = member(request, reply, oauth);
        if (!user) return reply;
        const [given, ...family] = user.name.split(' ');
        return {
          sub: user.id,
          name: user.name,
          given_name: given,
          family_name: family.join(' '),
          picture: `${state.baseUrl()}/media/${user.id}.jpg`,
          locale: { country: 'US', language: 'en' },
          email: `${user.username}@example.test`,
          email_verified: true,
        };
      });

      const initialize = (kind: LiAsset['kind']) => async (request: FastifyRequest, reply: FastifyReply) => {
        const user = rest(request, reply);
        if (!user) return reply;
        const action = (request.query as Record<string, string>).action;
        const store = liStore(state);
        const body = request.body as UploadActionBody | null;
        if (kind === 'video' && action === 'finalizeUpload') {
          const req = body?.finalizeUploadRequest;
          const asset = req ? store.assets.get(req.video) : undefined;
          if (!req || !asset || asset.kind !== 'video') return liError(reply, 404, `Video ${req?.video} not found`);
          const etags = asset.parts.map((p) => p.etag);
          if (!Array.isArray(req.uploadedPartIds) || etags.some((e, i) => !e || req.uploadedPartIds[i] !== e)) {
            return liError(reply, 400, 'uploadedPartIds do not match the uploaded parts', { code: 'ILLEGAL_ARGUMENT' });
          }
          // https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/videos-api:
          // after finalizeUpload the video is PROCESSING, then AVAILABLE (or PROCESSING_FAILED).
          asset.status = 'PROCESSING';
          asset.processing = {
            readyAt: now().getTime() + state.config.processingMs,
            fails: state.faults.take('processing') !== null,
          };
          return reply.status(200).send();
        }
        if (action !== 'initializeUpload')
          return liError(reply, 400, `Unsupported action ${action}`, { code: 'ILLEGAL_ARGUMENT' });
        const init = body?.initializeUploadRequest;
        if (!init || typeof init.owner !== 'string')
          return liError(reply, 422, 'ERROR :: /initializeUploadRequest/owner :: field is required but not found');
        if (!canActAs(store, user, init.owner))
          return liError(reply, 403, `Not enough permissions to upload as ${init.owner}`, {
            code: 'ACCESS_DENIED',
            serviceErrorCode: 100,
          });
        const uploadFault = state.faults.take('upload');
        if (sendFault(reply, uploadFault, 'The upload was refused')) return reply;
        if (uploadFault === 'ambiguous') return hangUp(reply);
        const id = `D4E${randomBytes(9).toString('base64url')}`;
        const urn = `urn:li:${kind}:${id}`;
        const asset: LiAsset = {
          urn,
          kind,
          owner: init.owner,
          status: 'WAITING_UPLOAD',
          size: 0,
          mimeType: null,
          parts: [],
        };
        store.assets.set(urn, asset);
        const expires = now().getTime() + 86_400_000;
        if (kind !== 'video') {
          return {
            value: {
              uploadUrlExpiresAt: expires,
              uploadUrl: `${state.baseUrl()}/dms-uploads/${encodeURIComponent(urn)}`,
              [kind]: urn,
            },
          };
        }
        const size = Number(init.fileSizeBytes);
        if (!Number.isInteger(size) || size <= 0)
          return liError(reply, 422, 'ERROR :: /initializeUploadRequest/fileSizeBytes :: must be a positive integer');
        for (let first = 0; first < size; first += VIDEO_PART)
          asset.parts.push({ firstByte: first, lastByte: Math.min(size, first + VIDEO_PART) - 1, etag: null });
        asset.size = size;
        return {
          value: {
            uploadUrlsExpireAt: expires,
            video: urn,
            uploadToken: '',
            uploadInstructions: asset.parts.map((p, i) => ({
              uploadUrl: `${state.baseUrl()}/dms-uploads/${encodeURIComponent(urn)}/${i}`,
              firstByte: p.firstByte,
              lastByte: p.lastByte,
            })),
          },
        };
      };
      app.post('/rest/images', initialize('image'));
      app.post('/rest/documents', initialize('document'));
      app.post('/rest/videos', initialize('video'));

      app.put<{ Params: { urn: string; part?: string } }>('/dms-uploads/:urn/:part?', async (request, reply) => {
        const user = member(request, reply, oauth);
        if (!user) return reply;
        const asset = liStore(state).assets.get(request.params.urn);
        if (!asset) return liError(reply, 404, 'Upload not found');
        const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.from(JSON.stringify(request.body ?? ''));
        asset.mimeType = String(request.headers['content-type'] ?? '') || null;
        if (asset.kind !== 'video') {
          asset.size = bytes.length;
          asset.status = 'AVAILABLE';
          return reply.status(201).send();
        }
        const part = asset.parts[Number(request.params.part)];
        if (!part) return liError(reply, 400, 'No such upload part');
        if (bytes.length !== part.lastByte - part.firstByte + 1)
          return liError(reply, 400, `Part ${request.params.part} must be ${part.lastByte - part.firstByte + 1} bytes`);
        part.etag = `/ambry-video/part-${randomBytes(6).toString('hex')}`;
        return reply.status(200).header('etag', part.etag).send();
      });

      for (const kind of ['images', 'documents', 'videos'] as const) {
        app.get<{ Params: { urn: string } }>(`/rest/${kind}/:urn`, async (request, reply) => {
          const user = rest(request, reply);
          if (!user) return reply;
          const asset = liStore(state).assets.get(request.params.urn);
          if (!asset) return liError(reply, 404, `${request.params.urn} not found`);
          settleAsset(asset, now().getTime());
          return {
            id: asset.urn,
            status: asset.status,
            owner: asset.owner,
            ...(asset.status === 'PROCESSING_FAILED'
              ? { processingFailureReason: 'The video could not be transcoded' }
              : {}),
          };
        });
      }

      app.post('/rest/posts', async (request, reply) => {
        const user = rest(request, reply);
        if (!user) return reply;
        const store = liStore(state);
        const body = request.body as LiPostBody;
        const problem = validatePost(body, store, now().getTime());
        if (problem) return liError(reply, 422, problem);
        if (!canActAs(store, user, body.author)) {
          return liError(reply, 403, `Not enough permissions to post as ${body.author}`, {
            code: 'ACCESS_DENIED',
            serviceErrorCode: 100,
          });
        }
        const fault = state.faults.take('publish');
        if (fault !== 'rejected' && sendFault(reply, fault, '')) return reply;
        const duplicate = [...store.posts.values()].find(
          (p) => !p.deleted && p.author === body.author && p.commentary === body.commentary,
        );
        if (fault === 'rejected' || duplicate) {
          return liError(reply, 422, `Content is a duplicate of ${duplicate?.urn ?? 'urn:li:share:0'}`, {
            code: 'DUPLICATE_POST',
          });
        }
        const urn = `urn:li:share:${nextLiId(store)}`;
        const createdAt = now().getTime();
        const post = { urn, author: body.author, commentary: body.commentary, createdAt, body, deleted: false };
        store.posts.set(urn, post);
        notifyMentions(store, post);
        state.posts.push(inspectPost(urn, body, store, createdAt));
        if (fault === 'ambiguous') return hangUp(reply);
        return reply.status(201).header('x-restli-id', urn).send();
      });

      /**
       * Find posts by author (`q=author&author={urn}`), newest first: `sortBy` CREATED or LAST_MODIFIED
       * (the default), `start` and `count` (at most 100) paging, with a `next` link while more remain.
       * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api#find-posts-by-authors
       */
      app.get('/rest/posts', async (request, reply) => {
        const user = rest(request, reply);
        if (!user) return reply;
        const q = request.query as Record<string, string>;
        if (q.q !== 'author' || !q.author)
          return liError(reply, 400, 'q=author and author are required', { code: 'ILLEGAL_ARGUMENT' });
        const bad = (name: string, max: number) =>
          q[name] !== undefined && (!/^\d+$/.test(q[name]) || Number(q[name]) > max);
        if (bad('start', Number.MAX_SAFE_INTEGER) || bad('count', 100)) {
          return liError(
            reply,
            400,
            `Invalid paging parameters start=${q.start ?? ''} count=${q.count ?? ''}: count must be 0 to 100, start not negative`,
            { code: 'ILLEGAL_ARGUMENT' },
          );
        }
        if (q.sortBy !== undefined && !['CREATED', 'LAST_MODIFIED'].includes(q.sortBy))
          return liError(reply, 400, `Invalid sortBy ${q.sortBy}`, { code: 'ILLEGAL_ARGUMENT' });
        const store = liStore(state);
        if (!canActAs(store, user, q.author))
          return liError(reply, 403, `Not enough permissions to read posts of ${q.author}`, { code: 'ACCESS_DENIED' });
        const fault = state.faults.take('lookup');
        if (sendFault(reply, fault, 'The request was refused')) return reply;
        if (fault === 'ambiguous') return hangUp(reply);
        const start = Number(q.start ?? 0);
        const count = Number(q.count ?? 10);
        const all = [...store.posts.values()]
          .filter((p) => !p.deleted && p.author === q.author)
          .sort((a, b) => b.createdAt - a.createdAt);
        const elements = all.slice(start, start + count).map((p) => ({
          ...p.body,
          id: p.urn,
          createdAt: p.createdAt,
          publishedAt: p.createdAt,
          lastModifiedAt: p.createdAt,
        }));
        const links =
          start + count < all.length
            ? [
                {
                  type: 'application/json',
                  rel: 'next',
                  href: `/rest/posts?author=${encodeURIComponent(q.author)}&count=${count}&q=author&start=${start + count}`,
                },
              ]
            : [];
        return { elements, paging: { start, count, links, total: all.length } };
      });

      /**
       * Update a post: a POST with `X-RestLi-Method: PARTIAL_UPDATE` and `{patch: {$set: {...}}}`; the fields
       * LinkedIn lets change are the commentary, the call-to-action label, the landing page, the lifecycle
       * state and the ad context. Answers 204; the post keeps its URN.
       * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api#update-posts
       */
      app.post<{ Params: { urn: string } }>('/rest/posts/:urn', async (request, reply) => {
        const user = rest(request, reply);
        if (!user) return reply;
        if (String(request.headers['x-restli-method'] ?? '').toUpperCase() !== 'PARTIAL_UPDATE')
          return liError(reply, 400, 'X-RestLi-Method PARTIAL_UPDATE is required to update a post', {
            code: 'ILLEGAL_ARGUMENT',
          });
        const store = liStore(state);
        const post = store.posts.get(request.params.urn);
        if (!post || post.deleted) return liError(reply, 404, `${request.params.urn} not found`);
        if (!canActAs(store, user, post.author))
          return liError(reply, 403, 'Not enough permissions to update this post', { code: 'ACCESS_DENIED' });
        const set = (request.body as { patch?: { $set?: Record<string, unknown> } } | null)?.patch?.$set;
        if (!set || typeof set !== 'object' || Object.keys(set).length === 0)
          return liError(reply, 400, 'ERROR :: /patch/$set :: field is required', { code: 'ILLEGAL_ARGUMENT' });
        const editable = [
          'commentary',
          'contentCallToActionLabel',
          'contentLandingPage',
          'lifecycleState',
          'adContext',
        ];
        const fixed = Object.keys(set).find((k) => !editable.includes(k));
        if (fixed) return liError(reply, 422, `ERROR :: /${fixed} :: field cannot be updated`);
        const updated = { ...post.body, ...set };
        const problem = validatePost(updated, store, now().getTime());
        if (problem) return liError(reply, 422, problem);
        const fault = state.faults.take('publish');
        if (sendFault(reply, fault, 'The post cannot be updated')) return reply;
        post.body = updated;
        post.commentary = String(updated.commentary);
        const inspected = state.posts.find((p) => p.id === post.urn);
        if (inspected) {
          inspected.text = post.commentary.replace(/\\(.)/g, '$1');
          inspected.extra = { ...inspected.extra, commentary: post.commentary, edited: true };
        }
        if (fault === 'ambiguous') return hangUp(reply);
        return reply.status(204).send();
      });

      app.delete<{ Params: { urn: string } }>('/rest/posts/:urn', async (request, reply) => {
        const user = rest(request, reply);
        if (!user) return reply;
        const store = liStore(state);
        const post = store.posts.get(request.params.urn);
        if (!post || post.deleted) return liError(reply, 404, `${request.params.urn} not found`);
        if (!canActAs(store, user, post.author))
          return liError(reply, 403, 'Not enough permissions to delete this post', { code: 'ACCESS_DENIED' });
        const fault = state.faults.take('delete');
        if (sendFault(reply, fault, 'The post cannot be deleted')) return reply;
        post.deleted = true;
        markDeleted(state, post.urn);
        if (fault === 'ambiguous') return hangUp(reply);
        return reply.status(204).send();
      });

      registerLinkedInComments(app, state, oauth, rest, sendFault, now);
      registerLinkedInLookups(app, state, rest, sendFault);
      registerLinkedInMentions(app, state, oauth, rest, sendFault, now);
      registerLinkedInAnalytics(app, state, rest, sendFault, oauth, now);
    },
  };
}

function inspectPost(urn: string, body: LiPostBody, store: ReturnType<typeof liStore>, createdAt: number) {
  const content = body.content ?? {};
  const refs: { id: string; altText?: string; title?: string }[] =
    content.multiImage?.images ?? (content.media ? [content.media] : []);
  const media = refs.map((r) => {
    const asset = store.assets.get(r.id)!;
    return {
      type: asset.kind,
      url: asset.urn,
      ...(asset.mimeType ? { mimeType: asset.mimeType } : {}),
      size: asset.size,
      ...(r.altText ? { altText: r.altText } : {}),
    };
  });
  const text = String(body.commentary).replace(/\\(.)/g, '$1');
  const mentions = [
    ...String(body.commentary).matchAll(/@\[((?:\\.|[^\]])+)\]\((urn:li:(?:person|organization):[A-Za-z0-9_-]+)\)/g),
  ].map((m) => ({
    name: m[1].replace(/\\(.)/g, '$1'),
    urn: m[2],
  }));
  return {
    id: urn,
    text,
    media,
    replyTo: null,
    author: body.author,
    destination: String(body.author).startsWith('urn:li:organization:') ? body.author : null,
    createdAt: new Date(createdAt).toISOString(),
    extra: {
      commentary: body.commentary,
      visibility: body.visibility,
      lifecycleState: body.lifecycleState,
      ...(content.article ? { article: content.article } : {}),
      ...(content.media?.title ? { title: content.media.title } : {}),
      mentions,
    },
  };
}
