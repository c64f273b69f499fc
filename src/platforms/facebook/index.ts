import type { Config } from '../../config.js';
import { platformBaseUrl, platformSetting } from '../config.js';
import {
  PlatformError,
  type AccountCredentials,
  type Destination,
  type PlatformAdapter,
  type PlatformIO,
  type ProcessingHandle,
  type ProcessingStarted,
  type PublishRequest,
  type PublishResult,
} from '../types.js';
import { facebookAnalytics } from './analytics.js';
import { graph, graphBase, type FacebookOptions } from './api.js';
import { FACEBOOK_DEFAULT_SCOPES, facebookOAuth } from './oauth.js';
import { checkText, feedPost, firstComment, photoStory, postUrl, videoState, type PageAccess } from './publish.js';
import { facebookInbox } from './inbox.js';
import { facebookInsights, type FacebookInsights } from './insights.js';
import { facebookPage, PAGE_WEBHOOK_FIELDS, type FacebookPage } from './page.js';
import { messengerMenu } from './settings.js';
import { uploadResumable, uploadRupload } from './upload.js';

function facebookOptions(config: Config): FacebookOptions {
  const scopes = config.env.FACEBOOK_SCOPES;
  const chunkMb = Number(config.env.FACEBOOK_UPLOAD_CHUNK_MB || 8);
  return {
    apiUrl: platformBaseUrl(config, 'facebook', 'https://graph.facebook.com'),
    authUrl: platformBaseUrl(config, 'facebook', 'https://www.facebook.com', 'AUTH'),
    version: config.env.FACEBOOK_GRAPH_VERSION || 'v24.0',
    appId: platformSetting(config, 'facebook', 'APP_ID', config.env.SANDBOX_URL ? '100000000000001' : null),
    appSecret: platformSetting(config, 'facebook', 'APP_SECRET'),
    scopes: scopes ? scopes.split(/[ ,]+/).filter(Boolean) : FACEBOOK_DEFAULT_SCOPES,
    chunkBytes: Number.isFinite(chunkMb) && chunkMb > 0 ? Math.round(chunkMb * 1024 * 1024) : 8 * 1024 * 1024,
  };
}

/** The user's long-lived token, kept beside the Page token (see `select`): lists Pages and opens upload sessions. */
const userToken = (account: AccountCredentials) => account.refreshToken ?? account.accessToken;

/** A Page of `GET /me/accounts`: the fields read. */
interface PageJson {
  id: string;
  name?: string;
  username?: string;
  category?: string;
  fan_count?: unknown;
  tasks?: unknown;
  picture?: { data?: { url?: string } };
  access_token?: unknown;
  instagram_business_account?: { id?: string };
}

/** An item of the Page edges findPublished reads (stories, published_posts, video_reels, videos). */
interface PageEdgeItem {
  id?: string;
  post_id?: string;
  media_type?: string;
  creation_time?: number | string;
  created_time?: string;
  message?: string;
  description?: string;
  permalink_url?: string;
  url?: string;
}

const pictureOf = (p: PageJson | null | undefined): string | null => p?.picture?.data?.url ?? null;

/** The Facebook adapter, with the Page calls its tools (tools.ts) make. */
export interface FacebookAdapter extends PlatformAdapter {
  page: FacebookPage;
  /** The Page's and its posts' insights its analytics routes read (insights.ts). */
  insights: FacebookInsights;
}

export function createFacebookAdapter(opts: FacebookOptions): FacebookAdapter {
  const oauth = facebookOAuth(opts);
  const base = graphBase(opts);

  /**
   * The Page a target posts to (`pageId`, else the account's) and its token. The account holds the
   * selected Page's token; another Page of the same user (the same account repeated with another pageId)
   * gets its token from `GET /{page}?fields=access_token` with the user's token.
   */
  async function pageAccess(account: AccountCredentials, io: PlatformIO, wanted?: unknown): Promise<PageAccess> {
    const selected = typeof account.metadata.pageId === 'string' ? account.metadata.pageId : null;
    const pageId = typeof wanted === 'string' && wanted ? wanted : selected;
    if (!pageId)
      throw new PlatformError(
        'rejected',
        'no Facebook Page is selected for this account: choose one with PUT /v1/accounts/{accountId}/facebook-page',
        { platformCode: 'page_not_selected' },
      );
    if (pageId === selected && account.accessToken) return { pageId, token: account.accessToken };
    const user = userToken(account);
    if (!user)
      throw new PlatformError('auth', 'the Facebook account has no user token to reach another Page; reconnect it');
    const res = await graph(io, {
      method: 'GET',
      url: `${base}/${encodeURIComponent(pageId)}?fields=id,access_token`,
      token: user,
    });
    if (typeof res.body?.access_token !== 'string')
      throw new PlatformError('rejected', `the connected Facebook user does not manage Page ${pageId}`, {
        platformCode: 'page_not_available',
      });
    return { pageId, token: res.body.access_token };
  }

  async function finishVideo(handle: ProcessingHandle, req: PublishRequest, io: PlatformIO): Promise<PublishResult> {
    const page = await pageAccess(req.account, io, handle.pageId);
    const videoId = String(handle.videoId);
    const res = await graph(io, {
      method: 'GET',
      url: `${base}/${videoId}?fields=id,permalink_url,post_id`,
      token: page.token,
    });
    const link = res.body?.permalink_url as string | undefined;
    const url = link
      ? link.startsWith('http')
        ? link
        : `https://www.facebook.com${link}`
      : `https://www.facebook.com/${page.pageId}/videos/${videoId}`;
    const result: PublishResult = {
      platformPostId: videoId,
      platformPostUrl: url,
      extra: { pageId: page.pageId, kind: handle.kind },
    };
    if (handle.kind !== 'story') {
      const comment = await firstComment(
        opts,
        io,
        page,
        videoId,
        req.firstComment ?? (req.platformSpecificData.firstComment as string | undefined),
      );
      if (comment) result.firstComment = comment;
    }
    return result;
  }

  /** A video, reel or video story is uploaded; one look at its processing, then the post or a wait. */
  async function afterUpload(
    handle: ProcessingHandle,
    req: PublishRequest,
    io: PlatformIO,
    page: PageAccess,
  ): Promise<PublishResult | ProcessingStarted> {
    const state = await videoState(opts, io, page, String(handle.videoId)).catch(() => ({
      state: 'processing' as const,
      waitMs: 10_000,
    }));
    if (state.state === 'failed')
      throw new PlatformError('rejected', state.reason, { platformCode: state.platformCode ?? null });
    if (state.state === 'processing') return { processing: { handle, waitMs: state.waitMs } };
    return finishVideo(handle, req, io);
  }

  async function feedVideo(
    req: PublishRequest,
    io: PlatformIO,
    page: PageAccess,
  ): Promise<PublishResult | ProcessingStarted> {
    checkText(req);
    const h = await uploadResumable(opts, io, req.media[0], userToken(req.account) ?? page.token);
    const title = typeof req.platformSpecificData.title === 'string' ? req.platformSpecificData.title : undefined;
    const res = await graph(io, {
      method: 'POST',
      url: `${base}/${page.pageId}/videos`,
      token: page.token,
      json: { fbuploader_video_file_chunk: h, description: req.content, ...(title ? { title } : {}), published: true },
      creates: true,
    });
    if (!res.body?.id)
      throw new PlatformError('ambiguous', 'Facebook answered the video without its id', {
        raw: res.raw.slice(0, 2000),
      });
    return afterUpload({ videoId: String(res.body.id), pageId: page.pageId, kind: 'video' }, req, io, page);
  }

  /** Reels and video stories: start, rupload, finish (https://developers.facebook.com/docs/video-api/guides/reels-publishing). */
  async function phased(
    req: PublishRequest,
    io: PlatformIO,
    page: PageAccess,
    edge: 'video_reels' | 'video_stories',
  ): Promise<PublishResult | ProcessingStarted> {
    if (edge === 'video_reels') checkText(req);
    const start = await graph(io, {
      method: 'POST',
      url: `${base}/${page.pageId}/${edge}`,
      token: page.token,
      json: { upload_phase: 'start' },
    });
    const videoId = String(start.body?.video_id ?? '');
    const uploadUrl = String(start.body?.upload_url ?? '');
    if (!videoId || !uploadUrl)
      throw new PlatformError('unavailable', `Facebook started no ${edge} upload`, { raw: start.raw.slice(0, 2000) });
    await uploadRupload(opts, io, req.media[0], uploadUrl, page.token);
    const title = typeof req.platformSpecificData.title === 'string' ? req.platformSpecificData.title : undefined;
    const finish = await graph(io, {
      method: 'POST',
      url: `${base}/${page.pageId}/${edge}`,
      token: page.token,
      // A story shows no text (spec): only the reel carries the description and title.
      json:
        edge === 'video_reels'
          ? {
              upload_phase: 'finish',
              video_id: videoId,
              video_state: 'PUBLISHED',
              description: req.content,
              ...(title ? { title } : {}),
            }
          : { upload_phase: 'finish', video_id: videoId },
      creates: true,
    });
    if (edge === 'video_stories') {
      const postId = String(finish.body?.post_id ?? videoId);
      return {
        platformPostId: postId,
        platformPostUrl: `https://www.facebook.com/stories/${page.pageId}`,
        extra: { pageId: page.pageId, videoId, kind: 'story' },
      };
    }
    return afterUpload({ videoId, pageId: page.pageId, kind: 'reel' }, req, io, page);
  }

  return {
    platform: 'facebook',
    oauth,
    firstComments: true,
    analytics: facebookAnalytics(opts),
    settings: { 'messenger-menu': messengerMenu(base) },
    page: facebookPage(opts),
    insights: facebookInsights(opts),
    inbox: facebookInbox(opts, pageAccess),

    async publish(req, io): Promise<PublishResult | ProcessingStarted> {
      const psd = req.platformSpecificData;
      const images = req.media.filter((m) => m.type === 'image' || m.type === 'gif');
      const videos = req.media.filter((m) => m.type === 'video');
      // Validation refuses these at creation; the adapter holds the same line for a post that slipped by.
      if (images.length && videos.length)
        throw new PlatformError('rejected', 'a Facebook post cannot mix images and videos', {
          platformCode: 'media_mix',
        });
      const page = await pageAccess(req.account, io, psd.pageId);
      if (psd.contentType === 'story') {
        if (req.media.length !== 1)
          throw new PlatformError('rejected', 'a story needs exactly one image or video', {
            platformCode: 'story_media',
          });
        return videos.length ? phased(req, io, page, 'video_stories') : photoStory(opts, io, page, req.media[0]);
      }
      if (psd.contentType === 'reel') {
        if (videos.length !== 1 || req.media.length !== 1)
          throw new PlatformError('rejected', 'a reel needs exactly one video', { platformCode: 'reel_media' });
        return phased(req, io, page, 'video_reels');
      }
      if (videos.length > 1)
        throw new PlatformError('rejected', 'a Facebook post takes one video', { platformCode: 'media_count' });
      if (videos.length) return feedVideo(req, io, page);
      const result = await feedPost(opts, io, page, req);
      const comment = await firstComment(
        opts,
        io,
        page,
        result.platformPostId,
        req.firstComment ?? (psd.firstComment as string | undefined),
      );
      return comment ? { ...result, firstComment: comment } : result;
    },

    processing: {
      async check(handle, req, io) {
        return videoState(opts, io, await pageAccess(req.account, io, handle.pageId), String(handle.videoId));
      },
      finish: finishVideo,
    },

    destinations: {
      kind: 'page',
      /** `GET /me/accounts` with the user's token: each Page with its own token (sealed with the account when chosen). */
      async list(tokens, io, o) {
        const fields = 'id,name,username,category,fan_count,picture,access_token,instagram_business_account';
        const res = await graph(io, {
          method: 'GET',
          url: `${base}/me/accounts?fields=${fields}&limit=100`,
          token: tokens.accessToken,
        });
        const pages: Destination[] = ((res.body?.data ?? []) as PageJson[]).map((p) => ({
          id: String(p.id),
          name: String(p.name ?? p.id),
          username: p.username ?? null,
          picture: pictureOf(p),
          details: {
            category: p.category ?? null,
            fan_count: typeof p.fan_count === 'number' ? p.fan_count : null,
            tasks: Array.isArray(p.tasks) ? p.tasks : [],
            instagramBusinessAccountId: p.instagram_business_account?.id ?? null,
          },
          tokens: typeof p.access_token === 'string' ? { accessToken: p.access_token, expiresAt: null } : undefined,
        }));
        return o?.ids ? pages.filter((p) => o.ids!.includes(p.id)) : pages;
      },
      /**
       * The Page's token publishes (it does not expire); the user's long-lived token stays beside it to list
       * Pages. The app is installed on the Page (`POST /{page-id}/subscribed_apps`) for the inbox's webhook
       * fields: Meta delivers a Page's webhooks only to apps the Page installed
       * (https://developers.facebook.com/docs/graph-api/webhooks/getting-started/webhooks-for-pages). It needs
       * `pages_manage_metadata`; without it the Page still posts and its inbox is polled, and
       * `pageWebhooks: false` in the metadata says pushes will not come.
       */
      async select(page, user, io) {
        if (!page) throw new PlatformError('rejected', 'a Facebook account posts to one of its Pages');
        if (!page.tokens)
          throw new PlatformError(
            'rejected',
            `Facebook gave no token for Page ${page.id}: the user must have a task on it that allows posting`,
            { platformCode: 'page_token_missing' },
          );
        const pageWebhooks = await graph(io, {
          method: 'POST',
          url: `${base}/${encodeURIComponent(page.id)}/subscribed_apps`,
          token: page.tokens.accessToken,
          json: { subscribed_fields: PAGE_WEBHOOK_FIELDS.join(',') },
        }).then(
          (res) => res.body?.success === true,
          // NOTE: not a failed selection: posting and polling need none of this.
          () => false,
        );
        return {
          metadata: {
            pageId: page.id,
            pageName: page.name,
            pageUsername: page.username ?? null,
            pageCategory: page.details.category ?? null,
            pageWebhooks,
          },
          profile: {
            ...user.profile,
            username: page.username ?? page.name,
            displayName: page.name,
            avatarUrl: page.picture ?? null,
            profileUrl: `https://www.facebook.com/${page.username ?? page.id}`,
          },
          tokens: {
            accessToken: page.tokens.accessToken,
            refreshToken: user.tokens.refreshToken ?? user.tokens.accessToken,
            expiresAt: null,
          },
        };
      },
      listingToken: userToken,
    },

    /**
     * After an unknown outcome: the Page's recent items of the kind the target makes, matched on its text
     * (the post's message, the video's or reel's description), as the other adapters match on theirs:
     * feed posts and photos at `GET /{page}/published_posts`, videos at `/{page}/videos`, reels at
     * `/{page}/video_reels`, stories (which carry no text) at `/{page}/stories`. An item without text
     * (photos alone, a story) is found only when it is the one such item since the attempt.
     */
    async findPublished(req, since, io) {
      const psd = req.platformSpecificData;
      const page = await pageAccess(req.account, io, psd.pageId);
      const after = since.getTime() - 300_000;
      const sinceSec = String(Math.floor(after / 1000));
      const video = req.media.some((m) => m.type === 'video');
      const kind =
        psd.contentType === 'story' ? 'story' : psd.contentType === 'reel' ? 'reel' : video ? 'video' : 'feed';
      const list = async (edge: string, fields: string, extra: Record<string, string> = {}) => {
        const q = new URLSearchParams({ fields, limit: '100', ...extra });
        const res = await graph(io, { method: 'GET', url: `${base}/${page.pageId}/${edge}?${q}`, token: page.token });
        return (Array.isArray(res.body?.data) ? res.body.data : []) as PageEdgeItem[];
      };
      const at = (t: unknown) => (typeof t === 'number' ? t * 1000 : Date.parse(String(t ?? '')));
      const url = (link: unknown, fallback: string) =>
        typeof link === 'string' && link
          ? link.startsWith('http')
            ? link
            : `https://www.facebook.com${link}`
          : fallback;
      if (kind === 'story') {
        const stories = (
          await list('stories', 'post_id,status,creation_time,media_type,url', { since: sinceSec })
        ).filter((s) => !(at(s.creation_time) < after));
        const wanted = video ? 'video' : 'photo';
        const found = stories.filter((s) => String(s.media_type ?? '').toLowerCase() === wanted);
        if (found.length !== 1) return null;
        return {
          platformPostId: String(found[0].post_id),
          platformPostUrl: url(found[0].url, `https://www.facebook.com/stories/${page.pageId}`),
          extra: { pageId: page.pageId, kind: 'story' },
        };
      }
      const items =
        kind === 'feed'
          ? (await list('published_posts', 'id,message,created_time,permalink_url', { since: sinceSec })).map((p) => ({
              id: String(p.id),
              text: p.message ?? '',
              at: at(p.created_time),
              link: p.permalink_url,
            }))
          : (
              await list(
                kind === 'reel' ? 'video_reels' : 'videos',
                'id,description,created_time,permalink_url',
                kind === 'reel' ? { since: sinceSec } : { type: 'uploaded' },
              )
            ).map((v) => ({
              id: String(v.id),
              text: v.description ?? '',
              at: at(v.created_time),
              link: v.permalink_url,
            }));
      const matches = items.filter((i) => !(i.at < after) && i.text === req.content);
      if (!matches.length || (!req.content && matches.length !== 1)) return null;
      const m = matches[0];
      const fallback = kind === 'feed' ? postUrl(m.id) : `https://www.facebook.com/${page.pageId}/videos/${m.id}`;
      return { platformPostId: m.id, platformPostUrl: url(m.link, fallback), extra: { pageId: page.pageId, kind } };
    },

    /** `DELETE /{post-id}` with the token of the Page the post id names (`{page}_{post}`), else the account's. */
    /**
     * `POST /{post-id} {message}`: the text of a Page post this app created (Graph refuses others); media
     * cannot change, and the post keeps its id, reactions and comments.
     * https://developers.facebook.com/docs/graph-api/reference/page-post/#updating
     */
    async editText(req, io) {
      const id = req.platformPostId;
      const page = await pageAccess(req.account, io, id.includes('_') ? id.split('_')[0] : undefined);
      await graph(io, {
        method: 'POST',
        url: `${base}/${encodeURIComponent(id)}`,
        token: page.token,
        json: { message: req.content },
      });
      return { platformPostId: id, platformPostUrl: req.platformPostUrl };
    },
    async unpublish(account, platformPostId, io) {
      const owner = platformPostId.includes('_') ? platformPostId.split('_')[0] : undefined;
      const page = await pageAccess(account, io, owner);
      await graph(io, { method: 'DELETE', url: `${base}/${encodeURIComponent(platformPostId)}`, token: page.token });
    },
  };
}

/** The Facebook adapter from configuration (FACEBOOK_APP_ID/SECRET, FACEBOOK_GRAPH_VERSION, FACEBOOK_API_URL, _AUTH_URL, FACEBOOK_SCOPES, FACEBOOK_UPLOAD_CHUNK_MB). */
export function facebookAdapterFromConfig(config: Config): FacebookAdapter {
  return createFacebookAdapter(facebookOptions(config));
}
