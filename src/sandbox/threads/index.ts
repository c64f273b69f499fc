import type { FastifyInstance } from 'fastify';
import { INSIGHTS_FIELDS, registerGraph, type GraphCall, type GraphHandler, type GraphNode } from '../graph/index.js';
import type { GraphToken } from '../graph/world.js';
import { markDeleted, type InspectedPost, type Simulator, type SimulatorState } from '../types.js';
import { fetchMedia } from './media.js';
import { INSIGHTS_HANDLERS } from './insights.js';
import { registerThreadsOAuth, type ThreadsAuth } from './oauth.js';
import { containerProblem } from './rules.js';
import {
  graphError,
  graphTime,
  loseAnswer,
  newId,
  newShortcode,
  paramError,
  permalink,
  sendFault,
  stringParams,
  thStore,
  userFor,
  type ThContainer,
  type ThPost,
  type ThStore,
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

const MEDIA_TYPE_OUT: Record<string, string> = {
  TEXT: 'TEXT_POST',
  IMAGE: 'IMAGE',
  VIDEO: 'VIDEO',
  CAROUSEL: 'CAROUSEL_ALBUM',
};

/**
 * The Threads API (graph.threads.net) on loopback, on the shared Graph core (src/sandbox/graph): OAuth
 * with short- and long-lived tokens (oauth.ts, plugged into the core as its own login), `/me`, media
 * containers (TEXT, IMAGE, VIDEO, CAROUSEL with children; media fetched from their URLs), container
 * status through processing, `threads_publish`, replies (`reply_to_id`, which is how a sequence is
 * chained), the user's threads and a thread's replies, the publishing quota, and delete. Paths are served
 * unversioned and under `/v1.0`. The core holds every call to the Threads spec
 * (graph/specs/threads-specs.json, derived from Meta's Postman collection): a parameter the edge does not
 * define, a missing required one, a wrong type or an enum value outside the list is Graph's `(#100)`
 * error, type THApiException; a field the node does not define is refused; answers carry only the fields
 * asked for. What is left here are Threads' own rules (rules.ts) and its state.
 *
 * Replies under the account's threads are its inbox: `POST /{reply}/manage_reply?hide=` hides one (the
 * thread's author only; `hide_status` HIDDEN), and `POST /_inbound {kind: "comment"}` is someone replying.
 *
 * Fault ops: `publish` (threads_publish), `processing` (the next media container ends in ERROR), `token`,
 * `lookup` (the user's threads), `delete`.
 */
export function threadsSimulator(opts: ThreadsSimulatorOptions = {}): Simulator {
  const now = () => (opts.now ? opts.now() : new Date()).getTime();
  return {
    platform: 'threads',
    now,
    insights: true,
    faultOps: ['publish', 'processing', 'token', 'lookup', 'delete', 'insights'],
    register(app: FastifyInstance, state: SimulatorState) {
      const auth = registerThreadsOAuth(app, state, now);
      registerInbound(app, state, now);
      registerGraph(app, state, {
        now,
        own: {
          versions: ['v1.0'],
          defaultVersion: 'v1.0',
          errorType: 'THApiException',
          defaultFields: {
            ThreadsPublishingLimit: ['quota_usage', 'config', 'reply_quota_usage', 'reply_config'],
            ThreadsInsights: INSIGHTS_FIELDS,
          },
          authenticate: (_request, given, reply, at) => tokenOf(auth, given, reply, at) ?? reply,
          resolveNode: (s, id, token) => resolveNode(s, id, token),
        },
        handlers: { ...handlers(state, now), ...INSIGHTS_HANDLERS },
      });
    },
  };
}

/**
 * `POST /_inbound {kind: "comment", account, postId, text, from?: {username}, replyTo?}` (docs/sandbox.md):
 * someone replies to one of the account's threads (or, with `replyTo`, to a reply under it). Stored as
 * a published reply of that person, so `/{thread}/replies` and `/conversation` list it.
 * `{kind: "mention", account, text, from?}` is a thread of that person's own tagging the account
 * (`@username` first unless the text has it), which `/{user}/mentions` lists. Threads has no direct
 * messages and pushes nothing here.
 */
function registerInbound(app: FastifyInstance, state: SimulatorState, now: () => number): void {
  app.post('/_inbound', async (request, reply) => {
    const b = (request.body ?? {}) as {
      kind?: string;
      account?: string;
      postId?: string;
      text?: string;
      from?: { username?: string; name?: string };
      replyTo?: string;
    };
    if (b.kind !== 'comment' && b.kind !== 'mention')
      return reply
        .status(400)
        .send({ error: 'Threads has replies and mentions only: kind must be "comment" or "mention"' });
    const store = thStore(state);
    const owner = [...store.users.values()].find((u) => u.id === b.account || u.username === b.account);
    // SANDBOX.md: an unknown account is the caller's mistake, a 400 that names it.
    if (!owner)
      return reply.status(400).send({
        error: `unknown account ${JSON.stringify(b.account ?? null)}: no Threads user with that id or username`,
      });
    if (b.kind === 'mention') {
      if (typeof b.text !== 'string' || !b.text) return reply.status(400).send({ error: 'text is required' });
      // A thread of `from`'s own that tags the account, which GET /{user}/mentions lists.
      const handle = `@${owner.username}`;
      const text = b.text.toLowerCase().includes(handle.toLowerCase()) ? b.text : `${handle} ${b.text}`;
      if (text.length > 500)
        return reply.status(400).send({ error: 'text with the tag is over the 500 characters Threads takes' });
      const author = userFor(store, b.from?.username ?? 'sandbox_replier', b.from?.name);
      if (author.id === owner.id)
        return reply.status(400).send({ error: 'from must be someone other than the account' });
      return storeThread(store, author.id, text, null, now());
    }
    const parent = store.posts.get(String(b.replyTo ?? b.postId ?? ''));
    if (!parent || parent.deleted || store.posts.get(parent.rootId)?.owner !== owner.id)
      return reply
        .status(404)
        .send({ error: 'postId (or replyTo) must be a thread of the account, or a reply under one' });
    if (typeof b.text !== 'string' || !b.text) return reply.status(400).send({ error: 'text is required' });
    const author = userFor(store, b.from?.username ?? 'sandbox_replier', b.from?.name);
    return storeThread(store, author.id, b.text, parent, now());
  });
}

/** A published text post of `owner` (a reply under `parent`, or a thread of its own), as if made through the API. */
function storeThread(store: ThStore, owner: string, text: string, parent: ThPost | null, at: number) {
  const id = newId(store, '18');
  const containerId = newId(store, '17');
  store.containers.set(containerId, {
    id: containerId,
    owner,
    mediaType: 'TEXT',
    text,
    media: null,
    children: [],
    isCarouselItem: false,
    replyTo: parent?.id ?? null,
    replyControl: null,
    createdAt: at,
    readyAt: at,
    fails: false,
    publishedId: id,
  });
  store.posts.set(id, {
    id,
    owner,
    containerId,
    mediaType: 'TEXT',
    text,
    shortcode: newShortcode(),
    replyTo: parent?.id ?? null,
    rootId: parent?.rootId ?? id,
    children: [],
    createdAt: at,
    deleted: false,
  });
  const author = [...store.users.values()].find((u) => u.id === owner)!;
  return { id, username: author.username, timestamp: graphTime(at) };
}

/** The Threads token as the core's token: the user it acts for. */
function tokenOf(
  auth: ThreadsAuth,
  given: string | undefined,
  reply: Parameters<ThreadsAuth['userOfToken']>[1],
  _now: number,
): GraphToken | null {
  const found = auth.userOfToken(given ?? null, reply);
  if (!found) return null;
  return {
    token: given!,
    kind: 'user',
    userId: found.user.id,
    clientId: '',
    expiresAt: found.expiresAt,
    longLived: found.kind === 'long',
    scopes: found.scopes,
    revoked: false,
  };
}

/** `me` and the token's own user, its containers, and threads that are not deleted; nothing else exists for the token. */
function resolveNode(state: SimulatorState, id: string, token: GraphToken): GraphNode | null {
  const store = thStore(state);
  if (id === 'me' || id === token.userId) return { id: token.userId, type: 'ThreadsUser' };
  const container = store.containers.get(id);
  if (container && container.owner === token.userId) return { id, type: 'ThreadsMediaContainer' };
  const post = store.posts.get(id);
  if (post && !post.deleted) return { id, type: 'ThreadsMedia' };
  return null;
}

function handlers(state: SimulatorState, now: () => number): Record<string, GraphHandler> {
  const store = () => thStore(state);
  const userOf = (call: GraphCall): ThUser => [...store().users.values()].find((u) => u.id === call.token.userId)!;

  const statusOf = (c: ThContainer): { status: string; error_message?: string } => {
    if (c.publishedId) return { status: 'PUBLISHED' };
    const children = c.children.map((id) => store().containers.get(id)!);
    const failed = c.fails ? c : children.find((ch) => ch.fails);
    const ready = Math.max(c.readyAt, ...children.map((ch) => ch.readyAt));
    if (now() < ready) return { status: 'IN_PROGRESS' };
    if (failed)
      return {
        status: 'ERROR',
        error_message: failed.mediaType === 'VIDEO' ? 'FAILED_PROCESSING_VIDEO' : 'FAILED_PROCESSING_IMAGE',
      };
    if (now() - c.createdAt > CONTAINER_TTL_MS) return { status: 'EXPIRED' };
    return { status: 'FINISHED' };
  };

  /** Everything the simulator knows of a thread; the core answers the fields asked for. */
  const postNode = (post: ThPost, viewer: string): Record<string, unknown> => {
    const author = [...store().users.values()].find((u) => u.id === post.owner)!;
    const c = store().containers.get(post.containerId)!;
    return {
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
      is_reply_owned_by_me: post.replyTo !== null && post.owner === viewer,
      ...(post.replyTo
        ? {
            root_post: { id: post.rootId },
            replied_to: { id: post.replyTo },
            hide_status: post.hidden ? 'HIDDEN' : 'NOT_HUSHED',
          }
        : {}),
      ...(c.media?.altText ? { alt_text: c.media.altText } : {}),
    };
  };

  const readUser: GraphHandler = (call) => {
    const user = userOf(call);
    return {
      id: user.id,
      username: user.username,
      name: user.name,
      threads_profile_picture_url: `https://scontent.cdninstagram.com/v/t51/${user.id}.jpg`,
      threads_biography: '',
      is_verified: false,
    };
  };

  const createContainer: GraphHandler = async (call) => {
    const user = userOf(call);
    const { reply } = call;
    const p = stringParams(call.params);
    const problem = containerProblem(p);
    if (problem) return paramError(reply, problem.message, problem.subcode);
    const children = (p.children ?? '').split(',').filter(Boolean);
    for (const id of children) {
      const child = store().containers.get(id);
      if (!child || child.owner !== user.id || !child.isCarouselItem)
        return paramError(reply, `Param children: ${id} is not a carousel item container of this user`, 4279007);
      if ([...store().containers.values()].some((c) => c.children.includes(id)))
        return paramError(reply, `Param children: ${id} is already in a carousel`, 4279007);
    }
    if (p.reply_to_id) {
      const parent = store().posts.get(p.reply_to_id);
      if (!parent || parent.deleted)
        return graphError(
          reply,
          400,
          100,
          `(#100) The post ${p.reply_to_id} to reply to does not exist or was deleted`,
          { subcode: 4279005 },
        );
    }
    const type = p.media_type.toUpperCase() as ThContainer['mediaType'];
    let media: ThContainer['media'] = null;
    if (type === 'IMAGE' || type === 'VIDEO') {
      const fetched = await fetchMedia(
        type === 'IMAGE' ? 'image' : 'video',
        (type === 'IMAGE' ? p.image_url : p.video_url)!,
        p.alt_text,
      );
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
      isCarouselItem: p.is_carousel_item === 'true' || p.is_carousel_item === '1',
      replyTo: p.reply_to_id ?? null,
      replyControl: p.reply_control ?? null,
      createdAt: now(),
      // A text container is ready at once; media and carousels (through their children) take processingMs.
      readyAt: processes ? now() + state.config.processingMs : now(),
      fails,
      publishedId: null,
    });
    return { id };
  };

  const publish: GraphHandler = (call) => {
    const user = userOf(call);
    const { reply } = call;
    const c = store().containers.get(String(call.params.creation_id));
    if (!c || c.owner !== user.id)
      return graphError(reply, 400, 24, 'The requested resource does not exist', { subcode: 4279009 });
    if (c.isCarouselItem)
      return paramError(reply, 'A carousel item container is published through its CAROUSEL container');
    const status = statusOf(c);
    if (status.status === 'PUBLISHED')
      return graphError(reply, 400, 100, '(#100) This container was already published', { subcode: 4279010 });
    if (status.status === 'IN_PROGRESS')
      return graphError(reply, 400, 24, 'The media is not ready to be published. Please wait a moment.', {
        subcode: 4279009,
      });
    if (status.status !== 'FINISHED')
      return graphError(reply, 400, 24, `The container cannot be published: ${status.error_message ?? status.status}`, {
        subcode: 4279009,
      });
    const parent = c.replyTo ? store().posts.get(c.replyTo) : null;
    if (c.replyTo && (!parent || parent.deleted))
      return graphError(reply, 400, 100, `(#100) The post ${c.replyTo} to reply to does not exist or was deleted`, {
        subcode: 4279005,
      });
    const fault = state.faults.take('publish');
    if (sendFault(reply, fault)) return reply;
    const since = now() - 86_400_000;
    const recent = [...store().posts.values()].filter(
      (x) => x.owner === user.id && x.createdAt > since && (x.replyTo !== null) === (c.replyTo !== null),
    );
    // https://developers.facebook.com/docs/threads/overview/#rate-limiting: 250 posts and 1,000 replies per
    // profile in a 24-hour moving period (`_config {rateLimits: false}` lifts it).
    if (state.config.rateLimits && recent.length >= (c.replyTo ? QUOTA.replies : QUOTA.posts))
      return graphError(reply, 400, 4, '(#4) The publishing limit for 24 hours was reached', {
        type: 'OAuthException',
        subcode: 2207042,
      });
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
      media: media.map((m) => ({
        type: m.type,
        url: m.url,
        mimeType: m.mimeType,
        size: m.size,
        ...(m.altText ? { altText: m.altText } : {}),
      })),
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
  };

  /** The user's own threads, newest first (replies are listed at /{user}/replies); `since`/`until` in epoch seconds. */
  const listThreads: GraphHandler = (call) => {
    const user = userOf(call);
    const fault = state.faults.take('lookup');
    if (sendFault(call.reply, fault)) return call.reply;
    if (loseAnswer(call.reply, fault)) return call.reply;
    const q = stringParams(call.params);
    const limit = Math.min(100, Math.max(1, Number(q.limit ?? 25) || 25));
    const since = q.since ? Number(q.since) * 1000 : -Infinity;
    const until = q.until ? Number(q.until) * 1000 : Infinity;
    const posts = [...store().posts.values()]
      .filter(
        (x) => x.owner === user.id && !x.deleted && x.replyTo === null && x.createdAt >= since && x.createdAt <= until,
      )
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, limit);
    const data = posts.map((x) => postNode(x, user.id));
    return {
      data,
      paging: data.length
        ? {
            cursors: {
              before: Buffer.from(posts[0].id).toString('base64url'),
              after: Buffer.from(posts.at(-1)!.id).toString('base64url'),
            },
          }
        : {},
    };
  };

  /**
   * `GET /{user}/mentions` (https://developers.facebook.com/docs/threads/threads-mentions): public posts by
   * others whose text tags the user (@username), newest first, with `since` / `until` (Unix seconds) and
   * `limit`. Needs threads_manage_mentions (#10 without it).
   */
  const listMentions: GraphHandler = (call) => {
    const user = userOf(call);
    if (!call.token.scopes.includes('threads_manage_mentions'))
      return graphError(
        call.reply,
        400,
        10,
        '(#10) Application does not have permission for this action: threads_manage_mentions is required',
        { type: 'OAuthException' },
      );
    const q = stringParams(call.params);
    if (q.since && Number(q.since) < 1688540400)
      return paramError(call.reply, 'Param since must be greater than or equal to 1688540400');
    const limit = Math.min(100, Math.max(1, Number(q.limit ?? 25) || 25));
    const since = q.since ? Number(q.since) * 1000 : -Infinity;
    const until = q.until ? Number(q.until) * 1000 : Infinity;
    const tag = new RegExp(`(^|[^\\w.])@${user.username.replace(/[.]/g, '\\.')}(?![\\w.])`, 'i');
    const posts = [...store().posts.values()]
      .filter(
        (x) => x.owner !== user.id && !x.deleted && tag.test(x.text) && x.createdAt >= since && x.createdAt <= until,
      )
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, limit);
    const data = posts.map((x) => postNode(x, user.id));
    return {
      data,
      paging: data.length
        ? {
            cursors: {
              before: Buffer.from(posts[0].id).toString('base64url'),
              after: Buffer.from(posts.at(-1)!.id).toString('base64url'),
            },
          }
        : {},
    };
  };

  const publishingLimit: GraphHandler = (call) => {
    const user = userOf(call);
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
  };

  /**
   * Meta's refusal, and true, when the token was not granted `permission`: threads_read_replies for GET
   * calls to the reply endpoints, threads_manage_replies for POST ones.
   * https://developers.facebook.com/docs/threads/retrieve-and-manage-replies
   */
  const lacks = (
    call: Parameters<GraphHandler>[0],
    permission: 'threads_read_replies' | 'threads_manage_replies',
  ): boolean => {
    if (call.token.scopes.includes(permission)) return false;
    graphError(
      call.reply,
      400,
      10,
      `(#10) Application does not have permission for this action: ${permission} is required`,
      { type: 'OAuthException' },
    );
    return true;
  };

  const listReplies =
    (edge: 'replies' | 'conversation'): GraphHandler =>
    (call) => {
      if (lacks(call, 'threads_read_replies')) return call.reply;
      const post = store().posts.get(call.node.id)!;
      const all = [...store().posts.values()].filter((x) => !x.deleted && x.id !== post.id);
      const replies =
        edge === 'replies'
          ? all.filter((x) => x.replyTo === post.id)
          : all.filter((x) => x.rootId === post.rootId && x.replyTo !== null && x.createdAt >= post.createdAt);
      return {
        data: replies.sort((a, b) => a.createdAt - b.createdAt).map((x) => postNode(x, call.token.userId)),
        paging: {},
      };
    };

  const readPost: GraphHandler = (call) => postNode(store().posts.get(call.node.id)!, call.token.userId);

  const readContainer: GraphHandler = (call) => ({
    id: call.node.id,
    ...statusOf(store().containers.get(call.node.id)!),
  });

  const remove: GraphHandler = (call) => {
    const post = store().posts.get(call.node.id)!;
    if (post.owner !== call.token.userId)
      return graphError(call.reply, 400, 10, '(#10) Only the author can delete this post', { type: 'OAuthException' });
    const fault = state.faults.take('delete');
    if (sendFault(call.reply, fault)) return call.reply;
    post.deleted = true;
    markDeleted(state, post.id);
    if (loseAnswer(call.reply, fault)) return call.reply;
    return { success: true, deleted_id: post.id };
  };

  /**
   * `POST /{reply}/manage_reply?hide=true|false`: the author of the thread a reply is under hides it or
   * shows it again (threads_manage_replies); a top-level thread cannot be hidden.
   */
  const manageReply: GraphHandler = (call) => {
    if (lacks(call, 'threads_manage_replies')) return call.reply;
    const post = store().posts.get(call.node.id)!;
    const root = store().posts.get(post.rootId);
    if (!post.replyTo) return paramError(call.reply, 'Only a reply can be hidden');
    if (!root || root.owner !== call.token.userId)
      return graphError(call.reply, 400, 10, '(#10) Only the author of the thread can hide its replies', {
        type: 'OAuthException',
      });
    post.hidden = String(call.params.hide) === 'true' || String(call.params.hide) === '1';
    return { success: true };
  };

  return {
    'GET ThreadsUser': readUser,
    'POST ThreadsUser threads': createContainer,
    'POST ThreadsUser threads_publish': publish,
    'GET ThreadsUser threads': listThreads,
    'GET ThreadsUser threads_publishing_limit': publishingLimit,
    'GET ThreadsUser mentions': listMentions,
    'GET ThreadsMedia': readPost,
    'GET ThreadsMedia replies': listReplies('replies'),
    'GET ThreadsMedia conversation': listReplies('conversation'),
    'DELETE ThreadsMedia': remove,
    'POST ThreadsMedia manage_reply': manageReply,
    'GET ThreadsMediaContainer': readContainer,
  };
}
