import { AppError } from '../../errors.js';
import { platformRequest, type PlatformHttp } from '../http.js';
import { PlatformError, type OAuthProvider, type PlatformIO, type PlatformProfile, type TokenSet } from '../types.js';
import { THREADS_HTTP, thRequest, type ThreadsOptions } from './api.js';

/**
 * Reading the profile and publishing (threads_basic is required for every endpoint), and deleting
 * (threads_delete), and the inbox: reading and hiding replies (threads_read_replies,
 * threads_manage_replies) and reading mentions (threads_manage_mentions).
 * https://developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions
 */
export const THREADS_DEFAULT_SCOPES = [
  'threads_basic',
  'threads_content_publish',
  'threads_delete',
  'threads_read_replies',
  'threads_manage_replies',
  'threads_manage_mentions',
];

function requireClient(opts: ThreadsOptions): { clientId: string; clientSecret: string } {
  if (!opts.clientId || !opts.clientSecret) {
    throw new AppError(
      'invalid',
      'platform_not_configured',
      'Threads is not configured on this server: set THREADS_APP_ID and THREADS_APP_SECRET (the Threads app id and secret from the Meta app dashboard)',
    );
  }
  return { clientId: opts.clientId, clientSecret: opts.clientSecret };
}

/** Token endpoints answer Graph errors; any 190 there means the token cannot be traded or renewed: the grant is dead. */
const TOKEN_HTTP: PlatformHttp = {
  name: 'Threads token endpoint',
  describe: THREADS_HTTP.describe,
  classify(answer, described) {
    const own = THREADS_HTTP.classify!(answer, described);
    if (own?.kind === 'auth')
      return new PlatformError('auth', own.message, {
        status: own.status,
        endpoint: own.endpoint,
        raw: own.raw,
        platformCode: own.platformCode,
        revoked: true,
      });
    return own;
  },
};

/** A token answer as Threads sends it; both fields are checked before use. */
interface TokenAnswer {
  access_token?: unknown;
  expires_in?: unknown;
}

/** A token answer `{access_token, expires_in?}` as a TokenSet. */
function tokensOf(body: TokenAnswer | null | undefined, io: PlatformIO, endpoint: string): TokenSet {
  if (typeof body?.access_token !== 'string')
    throw new PlatformError('rejected', 'Threads answered without an access token', { endpoint });
  const expiresIn = Number(body.expires_in);
  return {
    accessToken: body.access_token,
    // NOTE: Threads has no refresh token: a long-lived token renews itself (th_refresh_token). Herald
    // keeps the long-lived token as the account's refresh token too, so the generic refresh scan (which
    // picks accounts holding one) renews it before its 60 days run out; refreshTokens sends the current one.
    refreshToken: body.access_token,
    expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(io.now().getTime() + expiresIn * 1000) : null,
  };
}

export function threadsOAuth(
  opts: ThreadsOptions,
): OAuthProvider & { refreshLongLived(token: string, io: PlatformIO): Promise<TokenSet> } {
  /** GET on the unversioned token paths, the token in the query as Threads documents them. */
  const tokenGet = async (io: PlatformIO, path: string, params: Record<string, string>) => {
    const url = `${opts.apiUrl}${path}?${new URLSearchParams(params)}`;
    const res = await platformRequest(io, TOKEN_HTTP, { method: 'GET', url, endpoint: `${opts.apiUrl}${path}` });
    return tokensOf(res.body, io, `${opts.apiUrl}${path}`);
  };

  const provider = {
    /** threads.net's consent page; Threads takes no PKCE, the state carries the CSRF check. */
    authorizeUrl({
      state,
      redirectUri,
      scopes,
    }: {
      state: string;
      redirectUri: string;
      codeChallenge: string;
      scopes?: string[];
    }) {
      const { clientId } = requireClient(opts);
      const q = new URLSearchParams({
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: (scopes ?? opts.scopes).join(','),
        response_type: 'code',
        state,
      });
      return `${opts.authUrl}/oauth/authorize?${q}`;
    },

    /**
     * The code gives a short-lived token (an hour), which is traded at once for a long-lived one (60 days):
     * `POST /oauth/access_token`, then `GET /access_token?grant_type=th_exchange_token`.
     */
    async exchangeCode(
      { code, redirectUri }: { code: string; redirectUri: string; codeVerifier: string },
      io: PlatformIO,
    ): Promise<TokenSet> {
      const { clientId, clientSecret } = requireClient(opts);
      const endpoint = `${opts.apiUrl}/oauth/access_token`;
      const form = new URLSearchParams({
        client_id: clientId,
        client_secret: clientSecret,
        code,
        grant_type: 'authorization_code',
        redirect_uri: redirectUri,
      });
      const res = await platformRequest(io, TOKEN_HTTP, {
        method: 'POST',
        url: endpoint,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      });
      const short = tokensOf(res.body, io, endpoint);
      return tokenGet(io, '/access_token', {
        grant_type: 'th_exchange_token',
        client_secret: clientSecret,
        access_token: short.accessToken,
      });
    },

    /** The stored "refresh token" is the long-lived token itself (see tokensOf). */
    refresh(refreshToken: string, io: PlatformIO): Promise<TokenSet> {
      return provider.refreshLongLived(refreshToken, io);
    },

    /** `GET /refresh_access_token?grant_type=th_refresh_token`: a day-old, unexpired long-lived token gets 60 new days. */
    refreshLongLived(token: string, io: PlatformIO): Promise<TokenSet> {
      return tokenGet(io, '/refresh_access_token', { grant_type: 'th_refresh_token', access_token: token });
    },

    async fetchProfile(tokens: TokenSet, io: PlatformIO): Promise<PlatformProfile> {
      const res = await thRequest(io, opts, {
        method: 'GET',
        path: '/me',
        token: tokens.accessToken,
        params: { fields: 'id,username,name,threads_profile_picture_url' },
      });
      const me = res.body;
      if (typeof me?.id !== 'string' || typeof me?.username !== 'string')
        throw new PlatformError('rejected', 'Threads answered /me without an id and username', { endpoint: '/me' });
      return {
        platformUserId: me.id,
        username: me.username,
        displayName: me.name ?? me.username,
        profileUrl: `https://www.threads.net/@${me.username}`,
        avatarUrl: me.threads_profile_picture_url ?? null,
        metadata: {},
      };
    },
  };
  return provider;
}
