import type { Config } from '../../config.js';
import { platformBaseUrl, platformSetting } from '../config.js';
import {
  PlatformError,
  type AccountCredentials,
  type MediaRef,
  type PlatformAdapter,
  type PlatformIO,
  type ProcessingHandle,
  type ProcessingState,
  type PublishRequest,
  type PublishResult,
} from '../types.js';
import { postReplies } from '../thread.js';
import { twitterAnalytics } from './analytics.js';
import { xRequest, type TwitterOptions } from './api.js';
import { editTweet } from './edit.js';
import { twitterEngagement, type TwitterEngagement } from './engagement.js';
import { checkTweetMedia, mediaStatus, uploadMedia } from './media.js';
import { twitterInbox } from './inbox.js';
import { twitterOAuth } from './oauth.js';
import { REPLY_SETTINGS, TEXT } from './rules.js';

export type { TwitterOptions } from './api.js';

/** Verified (premium) accounts may post long text. */
const LONG_POST_LIMIT = 25_000;

function twitterOptions(config: Config): TwitterOptions {
  return {
    apiUrl: platformBaseUrl(config, 'twitter', 'https://api.x.com'),
    authUrl: platformBaseUrl(config, 'twitter', 'https://x.com', 'AUTH'),
    clientId: platformSetting(config, 'twitter', 'CLIENT_ID'),
    clientSecret: platformSetting(config, 'twitter', 'CLIENT_SECRET'),
  };
}

function token(account: AccountCredentials): string {
  if (!account.accessToken) throw new PlatformError('auth', 'the X account has no access token');
  return account.accessToken;
}

function postUrl(account: AccountCredentials, id: string): string {
  return `https://x.com/${account.username || 'i'}/status/${id}`;
}

/** Text with URLs blanked: X rewrites links to t.co, so a read-back compares the rest. */
function comparable(text: string): string {
  return text
    .normalize('NFC')
    .replace(/https?:\/\/\S+/g, '<url>')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Validates what can be validated before the first call, so nothing is half-sent. */
function checkRequest(req: PublishRequest): { replySettings: string | null; replyTo: string | null } {
  const max = req.account.metadata.verified === true ? LONG_POST_LIMIT : TEXT.limit;
  const texts = [req.content, ...req.threadItems.map((t) => t.content)];
  texts.forEach((text, i) => {
    const weightedLength = TEXT.count(text);
    // A post with media may have empty text.
    const media = i === 0 ? req.media : req.threadItems[i - 1].media;
    if (weightedLength > max || (weightedLength === 0 && media.length === 0)) {
      const where = i === 0 ? 'the post' : `thread item ${i}`;
      throw new PlatformError('rejected', `${where} is ${weightedLength} weighted characters; X allows ${max}`, {
        platformCode: 'text_too_long',
      });
    }
    checkTweetMedia(media);
  });
  const psd = req.platformSpecificData;
  const replySettings = psd.replySettings == null ? null : String(psd.replySettings);
  if (replySettings && !(REPLY_SETTINGS as readonly string[]).includes(replySettings)) {
    throw new PlatformError('rejected', `replySettings must be one of ${REPLY_SETTINGS.join(', ')}`);
  }
  const replyTo = psd.replyToTweetId == null ? null : String(psd.replyToTweetId);
  if (replyTo && !/^\d{1,19}$/.test(replyTo))
    throw new PlatformError('rejected', 'replyToTweetId must be a numeric post id');
  return { replySettings, replyTo };
}

/**
 * The media ids of a post and its thread, uploaded before any post is made: `root` for the root post,
 * `items[i]` for thread item i (empty for items an earlier attempt posted), `pending` those X is still
 * processing. Stored by the engine while the target is `processing` (it is the ProcessingHandle).
 */
interface XMediaPlan {
  root: string[];
  items: string[][];
  pending: string[];
}

function asPlan(handle: ProcessingHandle): XMediaPlan {
  const ids = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
  return {
    root: ids(handle.root),
    items: Array.isArray(handle.items) ? handle.items.map(ids) : [],
    pending: ids(handle.pending),
  };
}

/** The X adapter, with the engagement calls its tools (tools.ts) make. */
export interface TwitterAdapter extends PlatformAdapter {
  engagement: TwitterEngagement;
}

export function createTwitterAdapter(opts: TwitterOptions): TwitterAdapter {
  const oauth = twitterOAuth(opts);

  async function createTweet(
    io: PlatformIO,
    account: AccountCredentials,
    text: string,
    mediaIds: string[],
    replyTo: string | null,
    replySettings: string | null,
  ): Promise<string> {
    const body: Record<string, unknown> = { text };
    if (mediaIds.length) body.media = { media_ids: mediaIds };
    if (replyTo) body.reply = { in_reply_to_tweet_id: replyTo };
    if (replySettings) body.reply_settings = replySettings;
    if (io.signal?.aborted) throw new PlatformError('unavailable', 'publish cancelled before sending');
    const res = await xRequest(io, {
      method: 'POST',
      url: `${opts.apiUrl}/2/tweets`,
      token: token(account),
      json: body,
      creates: true,
    });
    const id = res.body?.data?.id;
    if (typeof id !== 'string') {
      // Accepted (2xx) but unreadable: the post probably exists.
      throw new PlatformError('ambiguous', 'X accepted the post but returned no id', {
        endpoint: '/2/tweets',
        status: res.status,
      });
    }
    return id;
  }

  /** Uploads every medium of the post and of the thread items still to post; one wait then covers them all. */
  async function uploadAll(req: PublishRequest, io: PlatformIO): Promise<{ plan: XMediaPlan; waitMs: number }> {
    const pending: string[] = [];
    let waitMs = 0;
    const upload = async (media: MediaRef[]) => {
      const ids: string[] = [];
      for (const m of media) {
        const uploaded = await uploadMedia(opts, token(req.account), m, io);
        ids.push(uploaded.id);
        if (uploaded.processingWaitMs !== null) {
          pending.push(uploaded.id);
          waitMs = Math.max(waitMs, uploaded.processingWaitMs);
        }
      }
      return ids;
    };
    const done = req.resume?.replies.length ?? 0;
    const root = req.resume ? [] : await upload(req.media);
    const items: string[][] = [];
    for (const [i, item] of req.threadItems.entries()) items.push(i < done ? [] : await upload(item.media));
    return { plan: { root, items, pending }, waitMs };
  }

  /**
   * The root post, then each thread item as a reply to the previous one (`postReplies`). Once the root
   * is out, a failing reply throws ThreadIncompleteError with what went out (never a plain failure: re-sending
   * would post the root again); the next attempt gets it as `req.resume` and continues after it.
   */
  async function postAll(req: PublishRequest, io: PlatformIO, plan: XMediaPlan): Promise<PublishResult> {
    const { replySettings, replyTo } = checkRequest(req);
    const resume = req.resume ?? null;
    const rootId = resume
      ? resume.platformPostId
      : await createTweet(io, req.account, req.content, plan.root, replyTo, replySettings);
    const replyIds = resume ? resume.replies.map((r) => r.id) : [];
    const progress = () => ({
      platformPostId: rootId,
      platformPostUrl: postUrl(req.account, rootId),
      replies: replyIds.map((id) => ({ id, url: postUrl(req.account, id) })),
    });
    await postReplies(req, io, { root: rootId, replies: replyIds, progress }, (item, previous) =>
      createTweet(
        io,
        req.account,
        item.content,
        plan.items[req.threadItems.indexOf(item)] ?? [],
        previous,
        replySettings,
      ),
    );
    const extra: Record<string, unknown> = {};
    if (req.threadItems.length) {
      extra.threadIds = replyIds;
      extra.threadUrls = replyIds.map((id) => postUrl(req.account, id));
    }
    return {
      platformPostId: rootId,
      platformPostUrl: postUrl(req.account, rootId),
      ...(Object.keys(extra).length ? { extra } : {}),
    };
  }

  return {
    platform: 'twitter',
    oauth,
    inbox: twitterInbox(opts),
    analytics: twitterAnalytics(opts),
    engagement: twitterEngagement(opts),

    /**
     * Uploads the media, then posts. When X is still processing a video or GIF, answers the media ids
     * instead of waiting: the engine asks `processing.check` later and `processing.finish` posts.
     */
    async publish(req, io) {
      checkRequest(req);
      const { plan, waitMs } = await uploadAll(req, io);
      if (plan.pending.length) return { processing: { handle: { ...plan }, waitMs } };
      return postAll(req, io, plan);
    },

    processing: {
      /** Every pending medium succeeded: ready; any failed: failed with X's reason; else the longest suggested wait. */
      async check(handle, req, io): Promise<ProcessingState> {
        let waitMs: number | null = null;
        for (const id of asPlan(handle).pending) {
          const state = await mediaStatus(opts, token(req.account), id, io);
          if (state.state === 'failed') return state;
          if (state.state === 'processing') waitMs = Math.max(waitMs ?? 0, state.waitMs);
        }
        return waitMs === null ? { state: 'ready' } : { state: 'processing', waitMs };
      },
      finish(handle, req, io) {
        return postAll(req, io, asPlan(handle));
      },
    },

    /** Looks for the root post among the user's posts since `since` (X rewrites URLs, so they are ignored). */
    async findPublished(req, since, io) {
      // A little slack for clock differences between Herald and X.
      const start = new Date(since.getTime() - 5 * 60 * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const url =
        `${opts.apiUrl}/2/users/${encodeURIComponent(req.account.platformUserId)}/tweets` +
        `?max_results=100&start_time=${encodeURIComponent(start)}&tweet.fields=created_at,attachments`;
      const res = await xRequest(io, { method: 'GET', url, token: token(req.account) });
      const want = comparable(req.content);
      const tweets: { id: string; text: string }[] = Array.isArray(res.body?.data) ? res.body.data : [];
      // Oldest match: the first attempt's post.
      const match = tweets
        .filter((t) => comparable(t.text ?? '') === want)
        .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))[0];
      return match ? { platformPostId: match.id, platformPostUrl: postUrl(req.account, match.id) } : null;
    },

    /** Deletes the post; for a thread, its replies first (X leaves replies up when the root goes). */
    async unpublish(account, platformPostId, io, thread) {
      const replies = thread?.platformPostId === platformPostId ? thread.replies.map((r) => r.id).reverse() : [];
      const remove = (id: string) =>
        xRequest(io, {
          method: 'DELETE',
          url: `${opts.apiUrl}/2/tweets/${encodeURIComponent(id)}`,
          token: token(account),
        });
      for (const id of replies) {
        // A reply someone already deleted is fine: it is gone either way.
        await remove(id).catch((error) => {
          if (!(error instanceof PlatformError && error.status === 404)) throw error;
        });
      }
      await remove(platformPostId);
    },

    /** A new version of the post through X's edit (edit.ts); the answer carries the new id. */
    editText: (req, io) => editTweet(opts, req, io, token(req.account), (id) => postUrl(req.account, id)),

    async refreshTokens(account, io) {
      if (!account.refreshToken)
        throw new PlatformError('auth', 'the X account has no refresh token; reconnect it', { revoked: true });
      return oauth.refresh(account.refreshToken, io);
    },
  };
}

/** The X adapter from configuration (TWITTER_API_URL, TWITTER_AUTH_URL, TWITTER_CLIENT_ID, TWITTER_CLIENT_SECRET). */
export function twitterAdapterFromConfig(config: Config): TwitterAdapter {
  return createTwitterAdapter(twitterOptions(config));
}
