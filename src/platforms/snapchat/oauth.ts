import { AppError } from '../../errors.js';
import { requestTokens } from '../oauth-token.js';
import { PlatformError, type OAuthProvider, type PlatformIO, type PlatformProfile, type TokenSet } from '../types.js';
import { snapRequest, type SnapchatOptions } from './api.js';

/**
 * The Public Profile API's scope (https://developers.snap.com/api/marketing-api/Public-Profile-API/GetStarted);
 * the app must also be allowlisted by Snap for the profiles' content endpoints.
 */
export const SNAPCHAT_DEFAULT_SCOPES = ['snapchat-profile-api'];

function requireClient(opts: SnapchatOptions): { clientId: string; clientSecret: string } {
  if (!opts.clientId || !opts.clientSecret) {
    throw new AppError(
      'invalid',
      'platform_not_configured',
      'Snapchat is not configured on this server: set SNAPCHAT_CLIENT_ID and SNAPCHAT_CLIENT_SECRET',
    );
  }
  return { clientId: opts.clientId, clientSecret: opts.clientSecret };
}

/**
 * POST https://accounts.snapchat.com/login/oauth2/access_token (form, client id and secret in the body):
 * https://developers.snap.com/api/marketing-api/Ads-API/authentication. A dead grant is `invalid_grant`.
 */
function tokenRequest(opts: SnapchatOptions, io: PlatformIO, params: Record<string, string>): Promise<TokenSet> {
  const { clientId, clientSecret } = requireClient(opts);
  return requestTokens(io, {
    url: `${opts.authUrl}/login/oauth2/access_token`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    form: new URLSearchParams({ ...params, client_id: clientId, client_secret: clientSecret }),
    platform: 'Snapchat',
    scopeSeparator: /[ ,]+/,
    isDeadGrant: (_status, body) => body?.error === 'invalid_grant',
  });
}

export function snapchatOAuth(opts: SnapchatOptions): OAuthProvider {
  return {
    // Snap's authorization code flow documents no PKCE: the client secret protects the exchange.
    authorizeUrl({ state, redirectUri, scopes }) {
      const { clientId } = requireClient(opts);
      const q = new URLSearchParams({
        client_id: clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: (scopes ?? opts.scopes).join(' '),
        state,
      });
      return `${opts.authUrl}/login/oauth2/authorize?${q}`;
    },
    exchangeCode({ code, redirectUri }, io) {
      return tokenRequest(opts, io, { grant_type: 'authorization_code', code, redirect_uri: redirectUri });
    },
    refresh(refreshToken, io) {
      return tokenRequest(opts, io, { grant_type: 'refresh_token', refresh_token: refreshToken });
    },
    /** The Snap user behind the token (`GET /v1/me`); the public profile they post to is chosen after. */
    async fetchProfile(tokens, io): Promise<PlatformProfile> {
      const res = await snapRequest(io, { method: 'GET', url: `${opts.apiUrl}/v1/me`, token: tokens.accessToken });
      const me = res.body?.me;
      if (!me?.id)
        throw new PlatformError('unavailable', 'Snapchat returned no user for /v1/me', { endpoint: '/v1/me' });
      const name: string = me.display_name ?? me.snapchat_username ?? String(me.id);
      return {
        platformUserId: String(me.id),
        username: me.snapchat_username ?? name,
        displayName: name,
        profileUrl: null,
        avatarUrl: null,
        metadata: { organizationId: me.organization_id ?? null },
      };
    },
  };
}
