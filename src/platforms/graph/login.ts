import { AppError } from '../../errors.js';
import type { PlatformHttp } from '../http.js';
import { PlatformError, type OAuthProvider, type PlatformIO, type PlatformProfile, type TokenSet } from '../types.js';
import { graphRequest } from './http.js';

/*
 * Facebook Login (https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow), as
 * every platform reached through it uses it: Facebook Pages, and Instagram professional accounts linked
 * to Pages. Only the app, the scopes and the names differ.
 */

export interface GraphLoginOptions {
  /** "Facebook", "Instagram": in messages. */
  name: string;
  /** Prefix of the settings named in messages: FACEBOOK (FACEBOOK_APP_ID, FACEBOOK_APP_SECRET). */
  settings: string;
  /** Graph host, e.g. https://graph.facebook.com. */
  apiUrl: string;
  /** Login dialog host, e.g. https://www.facebook.com. */
  authUrl: string;
  version: string;
  appId: string | null;
  appSecret: string | null;
  scopes: string[];
}

function requireApp(opts: GraphLoginOptions): { appId: string; appSecret: string } {
  if (!opts.appId || !opts.appSecret) {
    throw new AppError(
      'invalid',
      'platform_not_configured',
      `${opts.name} is not configured on this server: set ${opts.settings}_APP_ID and ${opts.settings}_APP_SECRET`,
    );
  }
  return { appId: opts.appId, appSecret: opts.appSecret };
}

/** `GET /oauth/access_token`: the code or the long-lived exchange. Graph answers errors in its own shape. */
async function tokenCall(
  opts: GraphLoginOptions,
  http: PlatformHttp,
  io: PlatformIO,
  params: Record<string, string>,
): Promise<TokenSet> {
  const { appId, appSecret } = requireApp(opts);
  const q = new URLSearchParams({ client_id: appId, client_secret: appSecret, ...params });
  const res = await graphRequest(io, http, {
    method: 'GET',
    url: `${opts.apiUrl}/${opts.version}/oauth/access_token?${q}`,
    token: '',
  }).catch((error: unknown) => {
    // The token endpoint never creates a post: a lost answer is worth another try, not a disconnect.
    if (error instanceof PlatformError && error.kind === 'ambiguous')
      throw new PlatformError('unavailable', error.message, { cause: error });
    // A used, expired or foreign code is a dead grant (Graph: code 100, subcodes 36007/36008/36009).
    if (error instanceof PlatformError && error.kind === 'rejected' && /^100\/3600/.test(error.platformCode ?? '')) {
      throw new PlatformError('auth', error.message, {
        status: error.status,
        platformCode: error.platformCode,
        endpoint: error.endpoint,
        raw: error.raw,
        revoked: true,
      });
    }
    throw error;
  });
  const token = res.body?.access_token;
  if (typeof token !== 'string')
    throw new PlatformError('rejected', `${opts.name} answered the token exchange without an access token`, {
      status: res.status,
      raw: res.raw.slice(0, 2000),
    });
  const expiresIn = Number(res.body.expires_in);
  return {
    accessToken: token,
    refreshToken: null,
    expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(io.now().getTime() + expiresIn * 1000) : null,
    scopes: null,
  };
}

export function graphLogin(opts: GraphLoginOptions, http: PlatformHttp): OAuthProvider {
  return {
    authorizeUrl({ state, redirectUri, scopes }) {
      const { appId } = requireApp(opts);
      const q = new URLSearchParams({
        client_id: appId,
        redirect_uri: redirectUri,
        state,
        response_type: 'code',
        scope: (scopes ?? opts.scopes).join(','),
      });
      return `${opts.authUrl}/${opts.version}/dialog/oauth?${q}`;
    },
    /**
     * The code gives a short-lived user token (about two hours); exchanged at once for a long-lived one
     * (60 days), so the Page tokens taken with it never expire
     * (https://developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived).
     */
    async exchangeCode({ code, redirectUri }, io) {
      const short = await tokenCall(opts, http, io, { redirect_uri: redirectUri, code });
      return tokenCall(opts, http, io, { grant_type: 'fb_exchange_token', fb_exchange_token: short.accessToken });
    },
    /** Facebook Login has no refresh token: a still-valid long-lived user token is exchanged for a fresh one. */
    refresh(userToken, io) {
      return tokenCall(opts, http, io, { grant_type: 'fb_exchange_token', fb_exchange_token: userToken });
    },
    async fetchProfile(tokens, io): Promise<PlatformProfile> {
      const res = await graphRequest(io, http, {
        method: 'GET',
        url: `${opts.apiUrl}/${opts.version}/me?fields=id,name,picture`,
        token: tokens.accessToken,
      });
      const me = res.body ?? {};
      if (!me.id) throw new PlatformError('rejected', `${opts.name} did not say who the user is`, { endpoint: '/me' });
      return {
        platformUserId: String(me.id),
        username: String(me.name ?? me.id),
        displayName: me.name ?? null,
        avatarUrl: me.picture?.data?.url ?? null,
        metadata: { userId: String(me.id) },
      };
    },
  };
}
