import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { markDeleted, type InspectedPost, type Simulator, type SimulatorState } from '../types.js';
import { fetchMedia } from './media.js';
import { registerThreadsOAuth, type ThreadsAuth } from './oauth.js';
import { containerProblem } from './rules.js';
import {
  graphError,
  graphTime,
  loseAnswer,
  newId,
  newShortcode,
  paramError,
  params,
  permalink,
  sendFault,
  thStore,
  type ThContainer,
  type ThPost,
  type ThUser,
} from './store.js';

export interface ThreadsSimulatorOptions {
  /** Clock for processing, token lifetimes and publish times. Default: real time. */
  now?: () => Date;
}

/** Containers not published within 24 hours expire (publishing reference). */
const CONTAINER_TTL_MS = 86_400_000;
/** Posts and replies an account may publish in 24 hours (threads_publishing_limit). */
const QUOTA = { posts: 250, replies: 1000 };

const MEDIA_TYPE_OUT: Record<string, string> = { TEXT: 'TEXT_POST', IMAGE: 'IMAGE', VIDEO: 'VIDEO', CAROUSEL: 'CAROUSEL_ALBUM' };
const POST_FIELDS = new Set([
  'id', 'media_product_type', 'media_type', 'media_url', 'permalink', 'owner', 'username', 'text', 'timestamp', 'shortcode', 'thumbnail_url',
  'children', 'is_quote_post', 'has_replies', 'is_reply', 'is_reply_owned_by_me', 'root_post', 'replied_to', 'alt_text', 'hide_status', 'reply_audience',
]);
/** A thread's replies and conversation have no `owner` (the collection's `fields_replies`). */
const REPLY_FIELDS = new Set([...POST_FIELDS].filter((f) => f !== 'owner'));
const CONTAINER_FIELDS = new Set(['id', 'status', 'error_message']);
const USER_FIELDS = new Set(['id', 'username', 'name', 'threads_profile_picture_url', 'threads_biography', 'is_verified']);

/**
 * The Threads API (graph.threads.net) on loopback: OAuth with short- and long-lived tokens (oauth.ts),
 * `/me`, media containers (TEXT, IMAGE, VIDEO, CAROUSEL with children; media fetched from their URLs),
 * container status through processing, `threads_publish`, replies (`reply_to_id`, which is how a
 * sequence is chained), the user's threads and a thread's replies, the publishing quota, and delete.
 * Every API path also answers under `/v1.0`. Errors are Graph's (`{error: {message, type, code,
 * error_subcode, fbtrace_id}}`); a parameter the edge does not define, or a field the node does not
 * have, is refused with (#100), as Graph does.
 *
 * Fault ops: `publish` (threads_publish), `processing` (the next media container ends in ERROR), `token`,
 * `lookup` (the user's threads), `delete`.
 */
export function threadsSimulator(opts: ThreadsSimulatorOptions = {}): Simulator {
  const now = () => (opts.now ? opts.now() : new Date()).getTime();
  return {
    platform: 'threads',
    faultOps: ['publish', 'processing', 'token', 'lookup', 'delete'],
    async register(app: FastifyInstance, state: SimulatorState) {
      const auth = registerThreadsOAuth(app, state, now);
      registerApi(app, state, auth, now);
      await app.register(async (versioned) => registerApi(versioned, state, auth, now), { prefix: '/v1.0' });
    },
  };
}

function fieldsOf(request: FastifyRequest): string[] {
  const f = (request.query as Record<string, unknown>).fields;
  return typeof f === 'string' ? f.split(',').map((s) => s.trim()).filter(Boolean) : [];
}

function registerApi(app: FastifyInstance, state: SimulatorState, auth: ThreadsAuth, now: () => number) {
  const store = () => thStore(state);

  /** `me` or the token's own user id; anything else does not exist for this token. */
  const owner = (request: FastifyRequest<{ Params: { user: string } }>, reply: FastifyReply): ThUser | null => {
    const user = auth.userOf(request, reply);
    if (!user) return null;
    const wanted = request.params.user;
    if (wanted !== 'me' && wanted !== user.id) {
      graphError(reply, 400, 100, `Unsupported request. Object with ID '${wanted}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`, { subcode: 33 });
      return null;
    }
    return user;
  };

  const statusOf = (c: ThContainer): { status: string; error_message?: string } => {
    if (c.publishedId) return { status: 'PUBLISHED' };
    const children = c.children.map((id) => store().containers.get(id)!);
    const failed = c.fails ? c : children.find((ch) => ch.fails);
    const ready = Math.max(c.readyAt, ...children.map((ch) => ch.readyAt));
    if (now() < ready) return { status: 'IN_PROGRESS' };
    if (failed) return { status: 'ERROR', error_message: failed.mediaType === 'VIDEO' ? 'FAILED_PROCESSING_VIDEO' : 'FAILED_PROCESSING_IMAGE' };
    if (now() - c.createdAt > CONTAINER_TTL_MS) return { status: 'EXPIRED' };
    return { status: 'FINISHED' };
  };

  const postNode = (post: ThPost, fields: string[], viewer: ThUser) => {
    const author = [...store().users.values()].find((u) => u.id === post.owner)!;
    const c = store().containers.get(post.containerId)!;
    const all: Record<string, unknown> = {
      id: post.id,
      media_product_type: 'THREADS',
      media_type: MEDIA_TYPE_OUT[post.mediaType],
      ...(c.media ? { media_url: c.media.url } : {}),
      permalink: permalink(author.username, post.shortcode),
      owner: { id: post.owner },
      username: author.username,
      ...(post.text ? { text: post.text } : {}),
      timestamp: graphTime(post.createdAt),
      shortcode: post.shortcode,
      ...(post.children.length ? { children: { data: post.children.map((id) => ({ id })) } } : {}),
      is_quote_post: false,
      has_replies: [...store().posts.values()].some((p) => p.replyTo === post.id && !p.deleted),
      is_reply: post.replyTo !== null,
      is_reply_owned_by_me: post.replyTo !== null && post.owner === viewer.id,
      ...(post.replyTo ? { root_post: { id: post.rootId }, replied_to: { id: post.replyTo }, hide_status: 'NOT_HUSHED' } : {}),
      ...(c.media?.altText ? { alt_text: c.media.altText } : {}),
    };
    const want = fields.length ? fields : ['id'];
    return Object.fromEntries(want.filter((f) => f in all).map((f) => [f, all[f]]));
  };

  const refuseFields = (reply: FastifyReply, fields: string[], allowed: Set<string>, node: string): boolean => {
    const bad = fields.find((f) => !allowed.has(f));
    if (!bad) return false;
    graphError(reply, 400, 100, `(#100) Tried accessing nonexisting field (${bad}) on node type (${node})`);
    return true;
  };

  app.get('/me', async (request, reply) => {
    const user = auth.userOf(request, reply);
    if (!user) return reply;
    const fields = fieldsOf(request);
    if (refuseFields(reply, fields, USER_FIELDS, 'ThreadsUser')) return reply;
    const all: Record<string, unknown> = {
      id: user.id,
      username: user.username,
      name: user.name,
      threads_profile_picture_url: `https://scontent.cdninstagram.com/v/t51/${user.id}.jpg`,
      threads_biography: '',
      is_verified: false,
    };
    return Object.fromEntries((fields.length ? fields : ['id']).map((f) => [f, all[f]]));
  });

  app.post<{ Params: { user: string } }>('/:user/threads', async (request, reply) => {
    const user = owner(request, reply);
    if (!user) return reply;
    const p = params(request);
    const problem = containerProblem(p);
    if (problem) return paramError(reply, problem.message, problem.subcode);
    const children = (p.children ?? '').split(',').filter(Boolean);
    for (const id of children) {
      const child = store().containers.get(id);
      if (!child || child.owner !== user.id || !child.isCarouselItem) return paramError(reply, `Param children: ${id} is not a carousel item container of this user`, 4279007);
      if ([...store().containers.values()].some((c) => c.children.includes(id))) return paramError(reply, `Param children: ${id} is already in a carousel`, 4279007);
    }
    if (p.reply_to_id) {
      const parent = store().posts.get(p.reply_to_id);
      if (!parent || parent.deleted) return graphError(reply, 400, 100, `(#100) The post ${p.reply_to_id} to reply to does not exist or was deleted`, { subcode: 4279005 });
    }
    const type = p.media_type as ThContainer['mediaType'];
    let media: ThContainer['media'] = null;
    if (type === 'IMAGE' || type === 'VIDEO') {
      const fetched = await fetchMedia(type === 'IMAGE' ? 'image' : 'video', (type === 'IMAGE' ? p.image_url : p.video_url)!, p.alt_text);
      if ('problem' in fetched) return paramError(reply, fetched.problem, fetched.subcode);
      media = fetched;
    }
    const id = newId(store(), '17');
    const processes = type === 'IMAGE' || type === 'VIDEO';
    const fails = processes && state.faults.take('processing') !== null;
    store().containers.set(id, {
      id,
      owner: user.id,
      mediaType: type,
      text: p.text ?? '',
      media,
      children,
      isCarouselItem: p.is_carousel_item === 'true',
      replyTo: p.reply_to_id ?? null,
      replyControl: p.reply_control ?? null,
      createdAt: now(),
      // A text container is ready at once; media and carousels (through their children) take processingMs.
      readyAt: processes ? now() + state.config.processingMs : now(),
      fails,
      publishedId: null,
    });
    return { id };
  });

  app.post<{ Params: { user: string } }>('/:user/threads_publish', async (request, reply) => {
    const user = owner(request, reply);
    if (!user) return reply;
    const p = params(request);
    const unknown = Object.keys(p).find((k) => k !== 'creation_id' && k !== 'access_token');
    if (unknown) return paramError(reply, `Param ${unknown} is not a valid parameter of the threads_publish edge`);
    if (!p.creation_id) return paramError(reply, 'The parameter creation_id is required');
    const c = store().containers.get(p.creation_id);
    if (!c || c.owner !== user.id) return graphError(reply, 400, 24, 'The requested resource does not exist', { subcode: 4279009 });
    if (c.isCarouselItem) return paramError(reply, 'A carousel item container is published through its CAROUSEL container');
    const status = statusOf(c);
    if (status.status === 'PUBLISHED') return graphError(reply, 400, 100, '(#100) This container was already published', { subcode: 4279010 });
    if (status.status === 'IN_PROGRESS') return graphError(reply, 400, 24, 'The media is not ready to be published. Please wait a moment.', { subcode: 4279009 });
    if (status.status !== 'FINISHED') return graphError(reply, 400, 24, `The container cannot be published: ${status.error_message ?? status.status}`, { subcode: 4279009 });
    const parent = c.replyTo ? store().posts.get(c.replyTo) : null;
    if (c.replyTo && (!parent || parent.deleted)) return graphError(reply, 400, 100, `(#100) The post ${c.replyTo} to reply to does not exist or was deleted`, { subcode: 4279005 });
    const fault = state.faults.take('publish');
    if (sendFault(reply, fault)) return reply;
    const since = now() - 86_400_000;
    const recent = [...store().posts.values()].filter((x) => x.owner === user.id && x.createdAt > since && (x.replyTo !== null) === (c.replyTo !== null));
    if (recent.length >= (c.replyTo ? QUOTA.replies : QUOTA.posts)) return graphError(reply, 400, 4, '(#4) The publishing limit for 24 hours was reached', { type: 'OAuthException', subcode: 2207042 });
    const id = newId(store(), '18');
    const post: ThPost = {
      id,
      owner: user.id,
      containerId: c.id,
      mediaType: c.mediaType,
      text: c.text,
      shortcode: newShortcode(),
      replyTo: c.replyTo,
      rootId: parent ? parent.rootId : id,
      children: [],
      createdAt: now(),
      deleted: false,
    };
    const media = c.media ? [c.media] : c.children.map((ch) => store().containers.get(ch)!.media!);
    if (c.mediaType === 'CAROUSEL') {
      for (const ch of c.children) {
        const childPostId = newId(store(), '18');
        store().containers.get(ch)!.publishedId = childPostId;
        post.children.push(childPostId);
      }
    }
    c.publishedId = id;
    store().posts.set(id, post);
    const inspected: InspectedPost = {
      id,
      text: c.text,
      media: media.map((m) => ({ type: m.type, url: m.url, mimeType: m.mimeType, size: m.size, ...(m.altText ? { altText: m.altText } : {}) })),
      replyTo: c.replyTo,
      author: user.username,
      createdAt: new Date(post.createdAt).toISOString(),
      destination: null,
      extra: {
        mediaType: c.mediaType,
        containerId: c.id,
        permalink: permalink(user.username, post.shortcode),
        rootId: post.rootId,
        ...(c.replyControl ? { replyControl: c.replyControl } : {}),
        ...(post.children.length ? { children: post.children } : {}),
      },
    };
    state.posts.push(inspected);
    if (loseAnswer(reply, fault)) return reply;
    return { id };
  });

  app.get<{ Params: { user: string } }>('/:user/threads', async (request, reply) => {
    const user = owner(request, reply);
    if (!user) return reply;
    const fields = fieldsOf(request);
    if (refuseFields(reply, fields, POST_FIELDS, 'ThreadsMedia')) return reply;
    const fault = state.faults.take('lookup');
    if (sendFault(reply, fault)) return reply;
    if (loseAnswer(reply, fault)) return reply;
    const q = request.query as Record<string, string>;
    const limit = Math.min(100, Math.max(1, Number(q.limit ?? 25) || 25));
    const since = q.since ? Number(q.since) * 1000 : -Infinity;
    const until = q.until ? Number(q.until) * 1000 : Infinity;
    // The user's own threads, newest first; replies are listed at /{user}/replies.
    const posts = [...store().posts.values()]
      .filter((x) => x.owner === user.id && !x.deleted && x.replyTo === null && x.createdAt >= since && x.createdAt <= until)
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, limit);
    const data = posts.map((x) => postNode(x, fields, user));
    return { data, paging: data.length ? { cursors: { before: Buffer.from(posts[0].id).toString('base64url'), after: Buffer.from(posts.at(-1)!.id).toString('base64url') } } : {} };
  });

  app.get<{ Params: { user: string } }>('/:user/threads_publishing_limit', async (request, reply) => {
    const user = owner(request, reply);
    if (!user) return reply;
    const since = now() - 86_400_000;
    const recent = [...store().posts.values()].filter((x) => x.owner === user.id && x.createdAt > since);
    return {
      data: [
        {
          quota_usage: recent.filter((x) => !x.replyTo).length,
          config: { quota_total: QUOTA.posts, quota_duration: 86_400 },
          reply_quota_usage: recent.filter((x) => x.replyTo).length,
          reply_config: { quota_total: QUOTA.replies, quota_duration: 86_400 },
        },
      ],
    };
  });

  const listReplies = (edge: 'replies' | 'conversation') =>
    async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
      const user = auth.userOf(request, reply);
      if (!user) return reply;
      const fields = fieldsOf(request);
      if (refuseFields(reply, fields, REPLY_FIELDS, 'ThreadsMedia')) return reply;
      const post = store().posts.get(request.params.id);
      if (!post || post.deleted) return graphError(reply, 400, 100, `Object with ID '${request.params.id}' does not exist`, { subcode: 33 });
      const all = [...store().posts.values()].filter((x) => !x.deleted && x.id !== post.id);
      const replies = edge === 'replies' ? all.filter((x) => x.replyTo === post.id) : all.filter((x) => x.rootId === post.rootId && x.replyTo !== null && x.createdAt >= post.createdAt);
      return { data: replies.sort((a, b) => a.createdAt - b.createdAt).map((x) => postNode(x, fields, user)), paging: {} };
    };
  app.get<{ Params: { id: string } }>('/:id/replies', listReplies('replies'));
  app.get<{ Params: { id: string } }>('/:id/conversation', listReplies('conversation'));

  app.get<{ Params: { id: string } }>('/:id', async (request, reply) => {
    const user = auth.userOf(request, reply);
    if (!user) return reply;
    const fields = fieldsOf(request);
    const { id } = request.params;
    const container = store().containers.get(id);
    if (container && container.owner === user.id) {
      if (refuseFields(reply, fields, CONTAINER_FIELDS, 'ThreadsMediaContainer')) return reply;
      const all = { id, ...statusOf(container) };
      return Object.fromEntries((fields.length ? fields : ['id']).filter((f) => f in all).map((f) => [f, all[f as keyof typeof all]]));
    }
    const post = store().posts.get(id);
    if (post && !post.deleted) {
      if (refuseFields(reply, fields, POST_FIELDS, 'ThreadsMedia')) return reply;
      return postNode(post, fields, user);
    }
    return graphError(reply, 400, 100, `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`, { subcode: 33 });
  });

  app.delete<{ Params: { id: string } }>('/:id', async (request, reply) => {
    const user = auth.userOf(request, reply);
    if (!user) return reply;
    const post = store().posts.get(request.params.id);
    if (!post || post.deleted) return graphError(reply, 400, 100, `Unsupported delete request. Object with ID '${request.params.id}' does not exist`, { subcode: 33 });
    if (post.owner !== user.id) return graphError(reply, 400, 10, '(#10) Only the author can delete this post', { type: 'OAuthException' });
    const fault = state.faults.take('delete');
    if (sendFault(reply, fault)) return reply;
    post.deleted = true;
    markDeleted(state, post.id);
    if (loseAnswer(reply, fault)) return reply;
    return { success: true, deleted_id: post.id };
  });
}
