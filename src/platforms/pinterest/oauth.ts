import { AppError } from '../../errors.js';
import { requestTokens } from '../oauth-token.js';
import { PlatformError, type OAuthProvider, type PlatformIO, type PlatformProfile, type TokenSet } from '../types.js';
import { pinRequest, type PinterestOptions } from './api.js';

/** Read the account, read and create boards, read and write pins. https://developers.pinterest.com/docs/getting-started/scopes/ */
export const PINTEREST_DEFAULT_SCOPES = [
  'user_accounts:read',
  'boards:read',
  'boards:write',
  'pins:read',
  'pins:write',
];

function requireClient(opts: PinterestOptions): { clientId: string; clientSecret: string } {
  if (!opts.clientId || !opts.clientSecret) {
    throw new AppError(
      'invalid',
      'platform_not_configured',
      'Pinterest is not configured on this server: set PINTEREST_CLIENT_ID and PINTEREST_CLIENT_SECRET',
    );
  }
  return { clientId: opts.clientId, clientSecret: opts.clientSecret };
}

/**
 * POST /v5/oauth/token (form). The app authenticates with HTTP Basic (client id and secret), never in
 * the body. A refresh answers a new refresh token (continuous refresh): the stored one is replaced.
 * https://developers.pinterest.com/docs/getting-started/set-up-authentication-and-authorization/
 */
function tokenRequest(opts: PinterestOptions, io: PlatformIO, params: Record<string, string>): Promise<TokenSet> {
  const { clientId, clientSecret } = requireClient(opts);
  return requestTokens(io, {
    url: `${opts.apiUrl}/v5/oauth/token`,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
    },
    form: new URLSearchParams(params),
    platform: 'Pinterest',
    scopeSeparator: /[ ,]/,
    // A revoked, expired or used grant: 401 {code: 283} (pinterest/pinterest-python-sdk#114); RFC 6749's
    // invalid_grant is read too. A bad client (code 2) is an auth failure, not a dead grant.
    isDeadGrant: (_status, body) => body?.code === 283 || body?.error === 'invalid_grant',
  });
}

export function pinterestOAuth(opts: PinterestOptions): OAuthProvider {
  return {
    // Pinterest documents no PKCE: the code challenge is not sent (the client secret protects the exchange).
    authorizeUrl({ state, redirectUri, scopes }) {
      const { clientId } = requireClient(opts);
      const q = new URLSearchParams({
        client_id: clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        // Pinterest's scopes are comma-separated.
        scope: (scopes ?? opts.scopes).join(','),
        state,
      });
      return `${opts.authUrl}/oauth/?${q}`;
    },
    exchangeCode({ code, redirectUri }, io) {
      return tokenRequest(opts, io, { grant_type: 'authorization_code', code, redirect_uri: redirectUri });
    },
    refresh(refreshToken, io) {
      return tokenRequest(opts, io, { grant_type: 'refresh_token', refresh_token: refreshToken });
    },
    /** GET /v5/user_account: the id, username and business name of the token's user. */
    async fetchProfile(tokens, io): Promise<PlatformProfile> {
      const res = await pinRequest(opts, io, { method: 'GET', path: '/user_account', token: tokens.accessToken });
      const user = res.body;
      if (!user?.id || !user.username)
        throw new PlatformError('unavailable', 'Pinterest returned no user for /v5/user_account', {
          endpoint: '/v5/user_account',
        });
      return {
        platformUserId: String(user.id),
        username: String(user.username),
        displayName: user.business_name || user.username,
        profileUrl: `https://www.pinterest.com/${encodeURIComponent(user.username)}/`,
        avatarUrl: user.profile_image ?? null,
        metadata: { accountType: user.account_type ?? null },
      };
    },
  };
}
