import { AppError } from '../../errors.js';
import { answerFields, platformRequest, type PlatformHttp } from '../http.js';
import { PlatformError, type OAuthProvider, type PlatformIO, type PlatformProfile, type TokenSet } from '../types.js';
import { graph, graphBase, INSTAGRAM_HTTP, type InstagramOptions } from './api.js';

/*
 * Instagram Login (Business Login for Instagram,
 * https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login):
 * the dialog on www.instagram.com, the code exchanged (form POST) on api.instagram.com for a one-hour
 * token, at once exchanged on graph.instagram.com (`ig_exchange_token`) for a 60-day one, which renews
 * itself (`ig_refresh_token`, once at least a day old). There is no refresh token: as for Threads, the
 * long-lived token is kept as the account's refresh token too, so the refresh scan renews it.
 * NOTE: these token endpoints take the token and secret in the query (Meta's only form for them).
 */

/** api.instagram.com answers `{error_type, code, error_message}`; a refused code is a dead grant. */
const LOGIN_HTTP: PlatformHttp = {
  name: 'Instagram',
  describe: (answer) =>
    typeof answer.body?.error_message === 'string'
      ? {
          message: answer.body.error_message,
          platformCode: String(answer.body.code ?? answer.body.error_type ?? '') || null,
        }
      : INSTAGRAM_HTTP.describe(answer),
  classify(answer, described) {
    if (typeof answer.body?.error_message === 'string' && answer.status === 400)
      return new PlatformError('auth', described.message, {
        ...answerFields(answer, described.platformCode),
        revoked: true,
      });
    return INSTAGRAM_HTTP.classify!(answer, described);
  },
};

function requireApp(opts: InstagramOptions): { appId: string; appSecret: string } {
  if (!opts.appId || !opts.appSecret) {
    throw new AppError(
      'invalid',
      'platform_not_configured',
      'Instagram is not configured on this server: set INSTAGRAM_APP_ID and INSTAGRAM_APP_SECRET (the Instagram app id and secret of your Meta app)',
    );
  }
  return { appId: opts.appId, appSecret: opts.appSecret };
}

/** A token call never creates a post: a lost answer is retried, not a disconnect. */
function transient(error: unknown): never {
  if (error instanceof PlatformError && error.kind === 'ambiguous')
    throw new PlatformError('unavailable', error.message, { cause: error });
  throw error;
}

/** A token answer as Instagram sends it; both fields are checked before use. */
interface TokenAnswer {
  access_token?: unknown;
  expires_in?: unknown;
}

function longLived(io: PlatformIO, body: TokenAnswer | null | undefined, raw: string): TokenSet {
  if (typeof body?.access_token !== 'string')
    throw new PlatformError('rejected', 'Instagram answered without an access token', { raw: raw.slice(0, 2000) });
  const expiresIn = Number(body.expires_in);
  const expiresAt =
    Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(io.now().getTime() + expiresIn * 1000) : null;
  return { accessToken: body.access_token, refreshToken: body.access_token, expiresAt, scopes: null };
}

export function instagramLoginOAuth(opts: InstagramOptions): OAuthProvider {
  const tokenGet = async (io: PlatformIO, path: string, params: Record<string, string>) => {
    const res = await platformRequest(io, LOGIN_HTTP, {
      method: 'GET',
      url: `${opts.apiUrl}${path}?${new URLSearchParams(params)}`,
      endpoint: path,
    }).catch(transient);
    return longLived(io, res.body, res.raw);
  };
  return {
    authorizeUrl({ state, redirectUri, scopes }) {
      const { appId } = requireApp(opts);
      const q = new URLSearchParams({
        client_id: appId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: (scopes ?? opts.scopes).join(','),
        state,
      });
      return `${opts.authUrl}/oauth/authorize?${q}`;
    },
    async exchangeCode({ code, redirectUri }, io) {
      const { appId, appSecret } = requireApp(opts);
      const form = new URLSearchParams({
        client_id: appId,
        client_secret: appSecret,
        grant_type: 'authorization_code',
        redirect_uri: redirectUri,
        code: code.replace(/#_$/, ''),
      });
      const res = await platformRequest(io, LOGIN_HTTP, {
        method: 'POST',
        url: `${opts.tokenUrl}/oauth/access_token`,
        endpoint: '/oauth/access_token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      }).catch(transient);
      // The answer is `{data: [{access_token, user_id, permissions}]}` (older apps: the object alone).
      const short = res.body?.data?.[0] ?? res.body;
      if (typeof short?.access_token !== 'string')
        throw new PlatformError('rejected', 'Instagram answered the code exchange without an access token', {
          raw: res.raw.slice(0, 2000),
        });
      return tokenGet(io, '/access_token', {
        grant_type: 'ig_exchange_token',
        client_secret: appSecret,
        access_token: short.access_token,
      });
    },
    /** The stored refresh token is the long-lived token itself: 60 new days. */
    refresh(token, io) {
      return tokenGet(io, '/refresh_access_token', { grant_type: 'ig_refresh_token', access_token: token });
    },
    async fetchProfile(tokens, io): Promise<PlatformProfile> {
      const res = await graph(io, {
        method: 'GET',
        url: `${graphBase(opts)}/me?fields=id,username,name,profile_picture_url`,
        token: tokens.accessToken,
      });
      const me = res.body ?? {};
      if (!me.id) throw new PlatformError('rejected', 'Instagram did not say who the account is', { endpoint: '/me' });
      return {
        platformUserId: String(me.id),
        username: String(me.username ?? me.id),
        displayName: me.name ?? me.username ?? null,
        avatarUrl: me.profile_picture_url ?? null,
        profileUrl: me.username ? `https://www.instagram.com/${me.username}` : null,
        metadata: { igUserId: String(me.id), igUsername: me.username ?? null },
      };
    },
  };
}
