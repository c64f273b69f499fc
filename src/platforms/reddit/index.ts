import type { Config } from '../../config.js';
import { platformBaseUrl, platformSetting } from '../config.js';
import {
  PlatformError,
  type AccountCredentials,
  type PlatformAdapter,
  type PlatformIO,
  type ProcessingStarted,
  type PublishRequest,
  type PublishResult,
} from '../types.js';
import { redditAnalytics } from './analytics.js';
import {
  bareSubreddit,
  publicRequest,
  RateWindows,
  rdRequest,
  token,
  USER_AGENT_FORMAT,
  type RedditOptions,
} from './api.js';
import { redditEngagement, type RedditEngagement } from './engagement.js';
import { redditInbox } from './inbox.js';
import { SELF_MAX, submissionKind } from './rules.js';
import { uploadMedia } from './media.js';
import { REDDIT_DEFAULT_SCOPES, redditOAuth } from './oauth.js';
import {
  matches,
  refusal,
  resultOf,
  submissionOf,
  submitForm,
  submitGallery,
  submitted,
  type Submission,
} from './submit.js';

/** How long to wait between looks for a media post Reddit has not listed yet (a video being transcoded). */
const LISTING_CHECK_MS = 5_000;
/** A media post still unlisted after this long is taken as failed on Reddit's side. */
const LISTING_GIVE_UP_MS = 30 * 60_000;

/** The default User-Agent, in the format Reddit requires; operators set their own with REDDIT_USER_AGENT. */
export const DEFAULT_USER_AGENT = 'server:herald:1.0 (by /u/herald_app)';

function redditOptions(config: Config): RedditOptions {
  const scopes = config.env.REDDIT_SCOPES;
  return {
    apiUrl: platformBaseUrl(config, 'reddit', 'https://oauth.reddit.com'),
    authUrl: platformBaseUrl(config, 'reddit', 'https://www.reddit.com', 'AUTH'),
    clientId: platformSetting(config, 'reddit', 'CLIENT_ID'),
    clientSecret: platformSetting(config, 'reddit', 'CLIENT_SECRET'),
    scopes: scopes ? scopes.split(/[ ,]+/).filter(Boolean) : REDDIT_DEFAULT_SCOPES,
    userAgent: platformSetting(config, 'reddit', 'USER_AGENT', DEFAULT_USER_AGENT) ?? DEFAULT_USER_AGENT,
  };
}

/** A subreddit as the tools show it. */
interface SubredditInfo {
  id: string;
  name: string;
  title: string;
  url: string;
  over18: boolean;
  description: string;
  subscribers: number;
  type: string;
  allowImages: boolean;
  allowVideos: boolean;
}

/** A subreddit (a `t5` thing's `data`): the fields read. */
interface SubredditJson {
  id?: string;
  display_name?: string;
  title?: string;
  url?: string;
  over18?: boolean;
  public_description?: string;
  subscribers?: number;
  subreddit_type?: string;
  allow_images?: boolean;
  allow_videos?: boolean;
}

const subredditInfo = (d: SubredditJson): SubredditInfo => ({
  id: String(d.id ?? ''),
  name: String(d.display_name ?? ''),
  title: String(d.title ?? ''),
  url: String(d.url ?? `/r/${d.display_name}/`),
  over18: d.over18 === true,
  description: String(d.public_description ?? ''),
  subscribers: Number(d.subscribers ?? 0),
  type: String(d.subreddit_type ?? 'public'),
  allowImages: d.allow_images !== false,
  allowVideos: d.allow_videos !== false,
});

/** The Reddit adapter, with the reads its tools (tools.ts) need. */
export interface RedditAdapter extends PlatformAdapter {
  /** Rules, votes and post flair (engagement.ts). */
  engagement: RedditEngagement;
  subscriptions(account: AccountCredentials, io: PlatformIO): Promise<SubredditInfo[]>;
  about(account: AccountCredentials, name: string, io: PlatformIO): Promise<SubredditInfo>;
  /** A subreddit's post requirements and flair templates, as the account's rule cache keeps them. */
  rules(
    account: AccountCredentials,
    name: string,
    io: PlatformIO,
  ): Promise<{ flairRequired: boolean; flairs: Record<string, unknown>[] }>;
  /** A subreddit by the public JSON (no account): null when it is private, banned or missing. */
  lookupSubreddit(name: string, io: PlatformIO): Promise<SubredditInfo | null>;
  /** A Listing of posts: `/search` (or `/r/{sr}/search`), or a feed `/{sort}` (or `/r/{sr}/{sort}`). */
  listing(
    account: AccountCredentials,
    path: string,
    query: Record<string, string | number | undefined>,
    io: PlatformIO,
  ): Promise<{ posts: Record<string, unknown>[]; after: string | null }>;
}

export function createRedditAdapter(opts: RedditOptions): RedditAdapter {
  const windows = new RateWindows();
  const oauth = redditOAuth(opts, windows);
  const get = (account: AccountCredentials, path: string, io: PlatformIO, endpoint?: string) =>
    rdRequest(opts, windows, io, { method: 'GET', path, token: token(account), endpoint });

  /** The media post `req` made, from the submitted listing; null while Reddit has not listed it. */
  async function findMediaPost(
    req: PublishRequest,
    sub: Submission,
    since: Date,
    assetId: string | undefined,
    io: PlatformIO,
  ): Promise<PublishResult | null> {
    const found = (await submitted(opts, windows, io, req.account)).find((p) => matches(p, req, sub, since, assetId));
    return found ? resultOf(found) : null;
  }

  async function publishMedia(
    req: PublishRequest,
    sub: Submission,
    io: PlatformIO,
  ): Promise<PublishResult | ProcessingStarted> {
    const started = io.now();
    const media = req.media[0];
    const asset = await uploadMedia(opts, windows, io, token(req.account), media);
    const extra: Record<string, string> = { url: asset.url };
    // A video submission needs a poster image: the item's thumbnail, else a placeholder (as PRAW does).
    if (sub.kind === 'video') {
      const poster = await uploadMedia(
        opts,
        windows,
        io,
        token(req.account),
        media.thumbnail ? { type: 'image', url: media.thumbnail } : null,
      );
      extra.video_poster_url = poster.url;
    }
    await submitForm(opts, windows, io, req, sub, extra);
    const handle = { kind: sub.kind, assetId: asset.assetId, since: started.toISOString() };
    // The answer names no post (recorded test_submit_image): it is found in the listing once Reddit shows it.
    const found = await findMediaPost(req, sub, started, asset.assetId, io).catch(() => null);
    return found ?? { processing: { handle, waitMs: LISTING_CHECK_MS } };
  }

  return {
    platform: 'reddit',
    oauth,
    inbox: redditInbox(opts, windows),
    analytics: redditAnalytics(opts, windows),
    engagement: redditEngagement(opts, windows),

    async publish(req, io) {
      const sub = submissionOf(req);
      if (sub.kind === 'gallery') return submitGallery(opts, windows, io, req, sub);
      if (sub.kind === 'image' || sub.kind === 'video') return publishMedia(req, sub, io);
      const data = await submitForm(
        opts,
        windows,
        io,
        req,
        sub,
        sub.kind === 'link' ? { url: String(req.platformSpecificData.url) } : { text: req.content },
      );
      const id = String(data.id ?? data.name ?? '').replace(/^t3_/, '');
      if (!id)
        throw new PlatformError('ambiguous', 'Reddit accepted the post without naming it', { endpoint: '/api/submit' });
      return { platformPostId: id, platformPostUrl: typeof data.url === 'string' ? data.url : null };
    },

    processing: {
      async check(handle, req, io) {
        const since = new Date(String(handle.since));
        if (await findMediaPost(req, submissionOf(req), since, String(handle.assetId), io)) return { state: 'ready' };
        if (io.now().getTime() - since.getTime() > LISTING_GIVE_UP_MS) {
          return {
            state: 'failed',
            reason: 'Reddit accepted the media post but never listed it (its processing failed on Reddit)',
            platformCode: 'media_not_listed',
          };
        }
        return { state: 'processing', waitMs: LISTING_CHECK_MS };
      },
      async finish(handle, req, io) {
        const found = await findMediaPost(
          req,
          submissionOf(req),
          new Date(String(handle.since)),
          String(handle.assetId),
          io,
        );
        if (!found)
          throw new PlatformError('unavailable', 'the media post is no longer listed on Reddit', {
            platformCode: 'media_not_listed',
          });
        return found;
      },
    },

    /** After an unknown outcome: the user's newest submissions, matched on subreddit, title and text or link. */
    async findPublished(req, since, io) {
      const sub = submissionOf(req);
      const found = (await submitted(opts, windows, io, req.account)).find((p) => matches(p, req, sub, since));
      return found ? resultOf(found) : null;
    },

    /**
     * POST /api/editusertext: the body of a self-post; Reddit has no way to edit a title, and a link or
     * media post has no body, so those are refused before any call. https://www.reddit.com/dev/api#POST_api_editusertext
     */
    async editText(req, io) {
      if (submissionKind(req.platformSpecificData, req.hasMedia ? [{ type: 'image' }] : []) !== 'self')
        throw new PlatformError('rejected', 'only a Reddit text post (self-post) can be edited', {
          platformCode: 'NOT_SELF_POST',
        });
      if ([...req.content].length > SELF_MAX)
        throw new PlatformError('rejected', `Reddit takes at most ${SELF_MAX} characters`, {
          platformCode: 'TOO_LONG',
        });
      const res = await rdRequest(opts, windows, io, {
        method: 'POST',
        path: '/api/editusertext',
        token: token(req.account),
        form: { api_type: 'json', thing_id: `t3_${req.platformPostId.replace(/^t3_/, '')}`, text: req.content },
      });
      const refused = refusal(res.body, { subreddit: '' }, '/api/editusertext');
      if (refused) throw refused;
      return { platformPostId: req.platformPostId, platformPostUrl: req.platformPostUrl };
    },

    /** POST /api/del: Reddit answers `{}` whether or not the post was there. */
    async unpublish(account, platformPostId, io) {
      await rdRequest(opts, windows, io, {
        method: 'POST',
        path: '/api/del',
        token: token(account),
        form: { id: `t3_${platformPostId.replace(/^t3_/, '')}` },
      });
    },

    async refreshTokens(account, io) {
      if (!account.refreshToken)
        throw new PlatformError('auth', 'the Reddit account has no refresh token; reconnect it', { revoked: true });
      return oauth.refresh(account.refreshToken, io);
    },

    async subscriptions(account, io) {
      const res = await get(account, '/subreddits/mine/subscriber?limit=100&raw_json=1', io);
      return ((res.body?.data?.children ?? []) as ({ data?: SubredditJson } | null)[]).map((c) =>
        subredditInfo(c?.data ?? {}),
      );
    },

    async about(account, name, io) {
      const sr = encodeURIComponent(bareSubreddit(name));
      const res = await get(account, `/r/${sr}/about?raw_json=1`, io, '/r/{sr}/about');
      // Reddit answers a search page (a Listing), not a 404, for some missing names.
      if (res.body?.kind !== 't5')
        throw new PlatformError('rejected', `r/${bareSubreddit(name)} does not exist`, {
          status: 404,
          platformCode: 'SUBREDDIT_NOEXIST',
        });
      return subredditInfo(res.body.data);
    },

    async rules(account, name, io) {
      const sr = encodeURIComponent(bareSubreddit(name));
      const req = await get(account, `/api/v1/${sr}/post_requirements`, io, '/api/v1/{sr}/post_requirements');
      const flairs = await get(account, `/r/${sr}/api/link_flair_v2`, io, '/r/{sr}/api/link_flair_v2');
      return {
        flairRequired: req.body?.is_flair_required === true,
        flairs: Array.isArray(flairs.body) ? flairs.body : [],
      };
    },

    async lookupSubreddit(name, io) {
      const res = await publicRequest(opts, io, `/r/${encodeURIComponent(bareSubreddit(name))}/about.json`).catch(
        (error: unknown) => {
          // Private (403) and missing or banned (404) subreddits are "does not exist" to a caller.
          if (error instanceof PlatformError && (error.status === 403 || error.status === 404)) return null;
          throw error;
        },
      );
      return res && res.body?.kind === 't5' && res.body.data?.subreddit_type !== 'private'
        ? subredditInfo(res.body.data)
        : null;
    },

    async listing(account, path, query, io) {
      const q = new URLSearchParams({ raw_json: '1' });
      for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, String(v));
      const res = await get(account, `${path}?${q}`, io, path.replace(/^\/r\/[^/]+/, '/r/{sr}'));
      return {
        posts: ((res.body?.data?.children ?? []) as ({ data?: Record<string, unknown> } | null)[])
          .map((c) => c?.data)
          .filter((d): d is Record<string, unknown> => Boolean(d)),
        after: res.body?.data?.after ?? null,
      };
    },
  };
}

/** The Reddit adapter from configuration (REDDIT_CLIENT_ID/SECRET, REDDIT_API_URL, REDDIT_AUTH_URL, REDDIT_SCOPES, REDDIT_USER_AGENT). */
export function redditAdapterFromConfig(config: Config): PlatformAdapter {
  const opts = redditOptions(config);
  if (!USER_AGENT_FORMAT.test(opts.userAgent)) {
    throw new Error(
      `REDDIT_USER_AGENT must read "<platform>:<app id>:<version> (by /u/<reddit username>)", as Reddit requires; got "${opts.userAgent}"`,
    );
  }
  return createRedditAdapter(opts);
}
