import type { Config } from '../../config.js';
import { graphLogin } from '../graph/login.js';
import {
  PlatformError,
  type AccountCredentials,
  type Destination,
  type DestinationsCapability,
  type PlatformAdapter,
  type PlatformIO,
  type ProcessingStarted,
  type PublishRequest,
  type PublishResult,
} from '../types.js';
import { graph, graphBase, INSTAGRAM_HTTP, instagramOptions, type InstagramOptions } from './api.js';
import { instagramInsightsReader, type IgInsightsReader } from './account-insights.js';
import { instagramAnalytics } from './analytics.js';
import { instagramInbox } from './inbox.js';
import { iceBreakers } from './settings.js';
import { instagramLoginOAuth } from './login.js';
import {
  carousel,
  checkQuota,
  handleState,
  makeContainers,
  publishContainer,
  type IgAccess,
  type IgHandle,
} from './publish.js';

/** The user's long-lived token, kept beside the Page token (see `select`): lists the accounts again. */
const userToken = (account: AccountCredentials) => account.refreshToken ?? account.accessToken;

/**
 * Instagram professional accounts, through Facebook Login (default): the user logs in with Facebook, each
 * of their Pages linked to an Instagram account (`instagram_business_account`) is a profile to choose,
 * and the chosen account publishes with its Page's token. Or through Instagram Login
 * (INSTAGRAM_LOGIN=instagram, login.ts): the account logs in itself and is the one profile, its own
 * token publishing on graph.instagram.com. Publishing is the same container flow either way. Instagram
 * does not delete media through the API, so there is no unpublish; a lost publish answer is looked up.
 */
export interface InstagramAdapter extends PlatformAdapter {
  readonly options: InstagramOptions;
  /** The professional account and the token that acts for it (the Page's, or its own with Instagram Login). */
  access(account: AccountCredentials): IgAccess;
  /** The Facebook Login user's token kept beside the Page token, or null with Instagram Login (there is none). */
  userToken(account: AccountCredentials): string | null;
  /** The account insights its analytics routes read (account-insights.ts). */
  accountInsights: IgInsightsReader;
}

/** A Page of `GET /me/accounts` with its linked Instagram account: the fields read. */
interface PageWithInstagram {
  id: string;
  name?: string;
  access_token?: unknown;
  instagram_business_account: { id: string };
}

export function createInstagramAdapter(opts: InstagramOptions): InstagramAdapter {
  const base = graphBase(opts);
  const oauth =
    opts.login === 'instagram'
      ? instagramLoginOAuth(opts)
      : graphLogin({ ...opts, name: 'Instagram', settings: 'INSTAGRAM' }, INSTAGRAM_HTTP);

  function access(account: AccountCredentials): IgAccess {
    const igUserId = account.metadata.igUserId ?? (opts.login === 'instagram' ? account.platformUserId : undefined);
    if (typeof igUserId !== 'string' || !igUserId) {
      throw new PlatformError(
        'rejected',
        'no Instagram account is selected for this connection: reconnect it and choose the Instagram account',
        { platformCode: 'profile_not_selected' },
      );
    }
    if (!account.accessToken) throw new PlatformError('auth', 'the Instagram account has no token; reconnect it');
    return { igUserId, token: account.accessToken };
  }

  /** The handle's containers are FINISHED: the carousel made when it is one, then the publish. */
  async function finish(handle: IgHandle, req: PublishRequest, io: PlatformIO): Promise<PublishResult> {
    const a = access(req.account);
    let containerId = handle.containerId;
    if (!containerId) {
      containerId = await carousel(opts, io, a, req, handle.children ?? []);
      const state = await handleState(opts, io, a, { ...handle, containerId });
      if (state.state === 'failed')
        throw new PlatformError('rejected', state.reason, { platformCode: state.platformCode ?? null });
      // Rare (a carousel container is ready at once): the next attempt makes another one, nothing is posted twice.
      if (state.state === 'processing')
        throw new PlatformError('unavailable', 'Instagram is still preparing the carousel', {
          retryAfterMs: state.waitMs,
        });
    }
    return publishContainer(opts, io, a, req, handle, containerId);
  }

  const pageProfiles: DestinationsCapability = {
    kind: 'profile',
    /**
     * `GET /me/accounts` with the user's token: each Page linked to an Instagram professional account,
     * then that account (`GET /{ig-user}`). The Page's token is handed on to publish with.
     */
    async list(tokens, io, o) {
      const res = await graph(io, {
        method: 'GET',
        url: `${base}/me/accounts?fields=id,name,access_token,instagram_business_account&limit=100`,
        token: tokens.accessToken,
      });
      // Pages without a linked Instagram account are dropped here; the rest have its id.
      const pages = ((res.body?.data ?? []) as PageWithInstagram[]).filter(
        (p) => p.instagram_business_account?.id && (!o?.ids || o.ids.includes(String(p.instagram_business_account.id))),
      );
      const out: Destination[] = [];
      for (const p of pages) {
        const igId = String(p.instagram_business_account.id);
        const token = typeof p.access_token === 'string' ? p.access_token : tokens.accessToken;
        const ig =
          (
            await graph(io, {
              method: 'GET',
              url: `${base}/${igId}?fields=id,username,name,profile_picture_url,followers_count`,
              token,
            })
          ).body ?? {};
        out.push({
          id: igId,
          name: String(ig.name ?? ig.username ?? igId),
          username: ig.username ?? null,
          picture: ig.profile_picture_url ?? null,
          details: {
            pageId: String(p.id),
            pageName: p.name ?? null,
            followers_count: typeof ig.followers_count === 'number' ? ig.followers_count : null,
          },
          tokens: typeof p.access_token === 'string' ? { accessToken: p.access_token, expiresAt: null } : undefined,
        });
      }
      return out;
    },
    /** The Page's token publishes (it does not expire); the user's long-lived token stays beside it to list again. */
    async select(profile, user) {
      if (!profile)
        throw new PlatformError('rejected', 'an Instagram connection posts as one Instagram professional account');
      if (!profile.tokens)
        throw new PlatformError(
          'rejected',
          `Facebook gave no token for the Page of Instagram account ${profile.username ?? profile.id}`,
          { platformCode: 'page_token_missing' },
        );
      return {
        metadata: {
          igUserId: profile.id,
          igUsername: profile.username ?? null,
          pageId: profile.details.pageId ?? null,
          pageName: profile.details.pageName ?? null,
        },
        profile: {
          ...user.profile,
          username: profile.username ?? profile.name,
          displayName: profile.name,
          avatarUrl: profile.picture ?? null,
          profileUrl: `https://www.instagram.com/${profile.username ?? ''}`,
        },
        tokens: {
          accessToken: profile.tokens.accessToken,
          refreshToken: user.tokens.refreshToken ?? user.tokens.accessToken,
          expiresAt: null,
        },
      };
    },
    listingToken: userToken,
  };

  /** Instagram Login: the logged-in professional account is the one profile; its own token publishes. */
  const ownProfile: DestinationsCapability = {
    kind: 'profile',
    selfOnly: true,
    async list(tokens, io, o) {
      const me =
        (
          await graph(io, {
            method: 'GET',
            url: `${base}/me?fields=id,username,name,profile_picture_url,followers_count`,
            token: tokens.accessToken,
          })
        ).body ?? {};
      if (!me.id) return [];
      const one: Destination = {
        id: String(me.id),
        name: String(me.name ?? me.username ?? me.id),
        username: me.username ?? null,
        picture: me.profile_picture_url ?? null,
        details: {
          pageId: null,
          pageName: null,
          followers_count: typeof me.followers_count === 'number' ? me.followers_count : null,
        },
      };
      return o?.ids && !o.ids.includes(one.id) ? [] : [one];
    },
    async select(profile, user) {
      if (!profile)
        throw new PlatformError('rejected', 'an Instagram connection posts as one Instagram professional account');
      return {
        metadata: { igUserId: profile.id, igUsername: profile.username ?? null },
        profile: {
          ...user.profile,
          username: profile.username ?? profile.name,
          displayName: profile.name,
          avatarUrl: profile.picture ?? null,
          profileUrl: `https://www.instagram.com/${profile.username ?? ''}`,
        },
      };
    },
  };

  return {
    platform: 'instagram',
    options: opts,
    access,
    userToken: (account) => (opts.login === 'instagram' ? null : userToken(account)),
    oauth,
    firstComments: true,

    async publish(req, io): Promise<PublishResult | ProcessingStarted> {
      const a = access(req.account);
      await checkQuota(opts, io, a);
      const handle = await makeContainers(opts, io, a, req);
      const state = await handleState(opts, io, a, handle);
      if (state.state === 'failed')
        throw new PlatformError('rejected', state.reason, { platformCode: state.platformCode ?? null });
      if (state.state === 'processing') return { processing: { handle, waitMs: state.waitMs } };
      return finish(handle, req, io);
    },

    /**
     * After a lost `media_publish` answer: the account's media since shortly before the attempt with the
     * same caption (`GET /{ig-user}/media?since=`). A story has no caption: found only when it is the one
     * story published since then (`GET /{ig-user}/stories`).
     */
    async findPublished(req, since, io) {
      const a = access(req.account);
      const story = req.platformSpecificData.contentType === 'story';
      const after = since.getTime() - 300_000;
      const q = new URLSearchParams({
        fields: 'id,caption,timestamp,permalink',
        limit: '100',
        ...(story ? {} : { since: String(Math.floor(after / 1000)) }),
      });
      const res = await graph(io, {
        method: 'GET',
        url: `${base}/${a.igUserId}/${story ? 'stories' : 'media'}?${q}`,
        token: a.token,
      });
      const items: { id: string; caption?: string; timestamp?: string; permalink?: string }[] = Array.isArray(
        res.body?.data,
      )
        ? res.body.data
        : [];
      const recent = items.filter((m) => !m.timestamp || Date.parse(m.timestamp) >= after);
      const matches = story ? recent : recent.filter((m) => (m.caption ?? '') === req.content);
      const [match] = matches;
      if (!match || (story && matches.length !== 1)) return null;
      return {
        platformPostId: String(match.id),
        platformPostUrl: match.permalink ?? null,
        extra: { igUserId: a.igUserId, kind: story ? 'story' : 'media' },
      };
    },

    processing: {
      check: (handle, req, io) => handleState(opts, io, access(req.account), handle as IgHandle),
      finish: (handle, req, io) => finish(handle as IgHandle, req, io),
    },

    destinations: opts.login === 'instagram' ? ownProfile : pageProfiles,
    analytics: instagramAnalytics(opts, access),
    accountInsights: instagramInsightsReader(opts, access),
    inbox: instagramInbox(opts, access),
    settings: { 'instagram-ice-breakers': iceBreakers(opts, access) },
    ...(opts.login === 'instagram'
      ? {
          refreshTokens: (account: AccountCredentials, io: PlatformIO) =>
            oauth.refresh!(account.accessToken ?? account.refreshToken ?? '', io),
        }
      : {}),
  };
}

/** The Instagram adapter from configuration (INSTAGRAM_LOGIN, INSTAGRAM_APP_ID/SECRET or Facebook's, INSTAGRAM_GRAPH_VERSION, INSTAGRAM_API_URL, _AUTH_URL, _TOKEN_URL, INSTAGRAM_SCOPES). */
export function instagramAdapterFromConfig(config: Config): InstagramAdapter {
  return createInstagramAdapter(instagramOptions(config));
}
