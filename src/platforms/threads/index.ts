import type { Config } from '../../config.js';
import { platformBaseUrl, platformSetting } from '../config.js';
import { postReplies } from '../thread.js';
import {
  PlatformError,
  type PlatformAdapter,
  type PlatformIO,
  type ProcessingStarted,
  type PublishRequest,
  type PublishResult,
  type ThreadItem,
} from '../types.js';
import { threadsAnalytics } from './analytics.js';
import { thRequest, token, type ThreadsOptions } from './api.js';
import { containerState, createContainer, FIRST_CHECK_MS, permalinkOf, publishContainer } from './containers.js';
import { threadsInbox } from './inbox.js';
import { THREADS_DEFAULT_SCOPES, threadsOAuth } from './oauth.js';
import { checkPublishable } from './rules.js';

function threadsOptions(config: Config): ThreadsOptions {
  const scopes = config.env.THREADS_SCOPES;
  return {
    apiUrl: platformBaseUrl(config, 'threads', 'https://graph.threads.net'),
    authUrl: platformBaseUrl(config, 'threads', 'https://threads.net', 'AUTH'),
    version: (config.env.THREADS_API_VERSION || 'v1.0').replace(/^\/+|\/+$/g, ''),
    // Meta calls them the app id and secret (THREADS_APP_ID/SECRET); the <PLATFORM>_CLIENT_* names work too.
    clientId: platformSetting(config, 'threads', 'APP_ID', config.env.THREADS_CLIENT_ID || null),
    clientSecret: platformSetting(config, 'threads', 'APP_SECRET', config.env.THREADS_CLIENT_SECRET || null),
    scopes: scopes ? scopes.split(/[ ,]+/).filter(Boolean) : THREADS_DEFAULT_SCOPES,
  };
}

/**
 * A reply whose container Threads was still processing when the attempt stopped: kept in the thread's
 * progress (ThreadProgress.state), so the next attempt publishes that container instead of making another.
 */
interface PendingReply {
  index: number;
  creationId: string;
}

function pendingOf(state: Record<string, unknown> | undefined): PendingReply | null {
  const p = state?.pending as Partial<PendingReply> | undefined;
  return p && typeof p.index === 'number' && typeof p.creationId === 'string'
    ? { index: p.index, creationId: p.creationId }
    : null;
}

function createThreadsAdapter(opts: ThreadsOptions): PlatformAdapter {
  const oauth = threadsOAuth(opts);

  /**
   * The replies of a sequence after its root (`rootId`, or the root an earlier attempt posted), each a
   * container with `reply_to_id` = the post before it, published once Threads has it ready. A reply
   * with media Threads is still processing stops the attempt as throttled for the time Threads needs,
   * with the container kept in the progress; the thread then continues after the last reply out.
   */
  async function thread(req: PublishRequest, io: PlatformIO, rootId: string | null): Promise<PublishResult> {
    const tok = token(req.account);
    const resume = req.resume ?? null;
    const root = resume
      ? { id: resume.platformPostId, url: resume.platformPostUrl }
      : { id: rootId!, url: await permalinkOf(io, opts, tok, rootId!) };
    const replies: { id: string; url: string | null }[] = resume
      ? resume.replies.map((r) => ({ id: r.id, url: r.url ?? null }))
      : [];
    let pending = pendingOf(resume?.state);
    const progress = () => ({
      platformPostId: root.id,
      platformPostUrl: root.url,
      replies: replies.map((r) => ({ id: r.id, url: r.url })),
      ...(pending ? { state: { pending } } : {}),
    });
    await postReplies(req, io, { root, replies, progress }, async (item: ThreadItem, parent) => {
      const index = replies.length;
      let creationId = pending?.index === index ? pending.creationId : null;
      if (!creationId) {
        creationId = await createContainer(io, opts, tok, {
          text: item.content,
          media: item.media,
          replyTo: parent.id,
        });
        pending = { index, creationId };
      }
      const state = await containerState(io, opts, tok, creationId, FIRST_CHECK_MS);
      if (state.state === 'processing') {
        throw new PlatformError(
          'rate_limited',
          `Threads is still processing the media of reply ${index + 1}; the thread continues with it`,
          { retryAfterMs: state.waitMs, platformCode: 'IN_PROGRESS' },
        );
      }
      if (state.state === 'failed') {
        pending = null;
        throw new PlatformError('rejected', state.reason, { platformCode: state.platformCode ?? null });
      }
      const id = await publishContainer(io, opts, tok, creationId);
      pending = null;
      return { id, url: await permalinkOf(io, opts, tok, id) };
    });
    const result: PublishResult = { platformPostId: root.id, platformPostUrl: root.url };
    if (req.threadItems.length)
      result.extra = { threadIds: replies.map((r) => r.id), threadUrls: replies.map((r) => r.url) };
    return result;
  }

  return {
    platform: 'threads',
    oauth,
    analytics: threadsAnalytics(opts),
    inbox: threadsInbox(opts),

    /**
     * The root's container, then one look at it: ready (text at once) is published at once; media Threads
     * is still fetching and processing wait in the engine's `processing` state with the container id.
     */
    async publish(req, io): Promise<PublishResult | ProcessingStarted> {
      checkPublishable(req);
      if (req.resume) return thread(req, io, null);
      const tok = token(req.account);
      const creationId = await createContainer(io, opts, tok, { text: req.content, media: req.media });
      const state = await containerState(io, opts, tok, creationId, FIRST_CHECK_MS).catch(() => ({
        state: 'processing' as const,
        waitMs: FIRST_CHECK_MS,
      }));
      if (state.state === 'failed')
        throw new PlatformError('rejected', state.reason, { platformCode: state.platformCode ?? null });
      if (state.state === 'processing') return { processing: { handle: { creationId }, waitMs: state.waitMs } };
      return thread(req, io, await publishContainer(io, opts, tok, creationId));
    },

    processing: {
      check(handle, req, io) {
        return containerState(io, opts, token(req.account), String(handle.creationId));
      },
      /** Publishes the processed root (unless an earlier attempt did: the thread goes on from its progress), then the replies. */
      async finish(handle, req, io) {
        if (req.resume) return thread(req, io, null);
        return thread(req, io, await publishContainer(io, opts, token(req.account), String(handle.creationId)));
      },
    },

    /** After an unknown outcome: the account's threads since the attempt (5 minutes of slack), matched on the exact text. */
    async findPublished(req, since, io) {
      const res = await thRequest(io, opts, {
        method: 'GET',
        path: '/me/threads',
        token: token(req.account),
        params: {
          fields: 'id,text,timestamp,permalink',
          since: String(Math.floor(since.getTime() / 1000) - 300),
          limit: '100',
        },
      });
      const data: { id: string; text?: string; permalink?: string }[] = Array.isArray(res.body?.data)
        ? res.body.data
        : [];
      const match = data.find((p) => (p.text ?? '') === req.content);
      return match ? { platformPostId: String(match.id), platformPostUrl: match.permalink ?? null } : null;
    },

    /**
     * `DELETE /{id}` (threads_delete): the replies of a sequence first, newest first, then the root.
     * A reply already gone is skipped. https://developers.facebook.com/docs/threads/posts/delete-posts
     */
    async unpublish(account, platformPostId, io, progress) {
      const del = (id: string) =>
        thRequest(io, opts, { method: 'DELETE', path: `/${encodeURIComponent(id)}`, token: token(account) });
      for (const reply of [...(progress?.replies ?? [])].reverse()) {
        await del(reply.id).catch((error: unknown) => {
          if (!(error instanceof PlatformError && error.platformCode === '100/33')) throw error;
        });
      }
      await del(platformPostId);
    },

    /** The long-lived token renews itself (th_refresh_token); there is no separate refresh token. */
    async refreshTokens(account, io) {
      const current = account.accessToken ?? account.refreshToken;
      if (!current)
        throw new PlatformError('auth', 'the Threads account has no token; reconnect it', { revoked: true });
      return oauth.refresh(current, io);
    },
  };
}

/** The Threads adapter from configuration (THREADS_APP_ID/SECRET or THREADS_CLIENT_ID/SECRET, THREADS_API_URL, _AUTH_URL, THREADS_API_VERSION, THREADS_SCOPES). */
export function threadsAdapterFromConfig(config: Config): PlatformAdapter {
  return createThreadsAdapter(threadsOptions(config));
}
