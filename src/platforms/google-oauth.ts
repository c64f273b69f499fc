import { AppError } from '../errors.js';
import { requestTokens, requestedScopes } from './oauth-token.js';
import type { OAuthProvider, PlatformIO, PlatformProfile, TokenSet } from './types.js';

/*
 * Google's OAuth 2.0 web server flow (https://developers.google.com/identity/protocols/oauth2/web-server),
 * shared by the platforms that sign in with a Google account; each gives its scopes and how to read the
 * connected user's profile.
 */

export interface GoogleOAuthOptions {
  /** Display name for errors ("YouTube"), and the environment prefix of its client id and secret. */
  name: string;
  envPrefix: string;
  authUrl: string;
  tokenUrl: string;
  clientId: string | null;
  clientSecret: string | null;
  scopes: string[];
}

function requireClient(opts: GoogleOAuthOptions): { clientId: string; clientSecret: string } {
  if (!opts.clientId || !opts.clientSecret) {
    throw new AppError(
      'invalid',
      'platform_not_configured',
      `${opts.name} is not configured on this server: set ${opts.envPrefix}_CLIENT_ID and ${opts.envPrefix}_CLIENT_SECRET`,
    );
  }
  return { clientId: opts.clientId, clientSecret: opts.clientSecret };
}

/** POST https://oauth2.googleapis.com/token (form, client secret in the body). A dead grant is `invalid_grant`. */
function tokenRequest(opts: GoogleOAuthOptions, io: PlatformIO, params: Record<string, string>): Promise<TokenSet> {
  const { clientId, clientSecret } = requireClient(opts);
  return requestTokens(io, {
    url: `${opts.tokenUrl}/token`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    form: new URLSearchParams({ ...params, client_id: clientId, client_secret: clientSecret }),
    platform: 'Google',
    scopeSeparator: ' ',
    // Google answers 400 invalid_grant for a revoked, expired (7 days for apps in "Testing") or used grant.
    isDeadGrant: (_status, body) => body?.error === 'invalid_grant',
  });
}

export function googleOAuth(
  opts: GoogleOAuthOptions,
  fetchProfile: (tokens: TokenSet, io: PlatformIO) => Promise<PlatformProfile>,
): OAuthProvider {
  return {
    /**
     * `access_type=offline` for a refresh token, and `prompt=consent` because Google sends the refresh
     * token only on a consent screen: reconnecting an account that already granted access would otherwise
     * come back without one. PKCE (S256) as Google supports it for web clients.
     */
    authorizeUrl({ state, redirectUri, codeChallenge, scopes, extraScopes }) {
      const { clientId } = requireClient(opts);
      const q = new URLSearchParams({
        client_id: clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: requestedScopes(opts.scopes, { scopes, extraScopes }),
        access_type: 'offline',
        prompt: 'consent',
        include_granted_scopes: 'true',
        state,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
      });
      return `${opts.authUrl}/o/oauth2/v2/auth?${q}`;
    },
    exchangeCode({ code, redirectUri, codeVerifier }, io) {
      return tokenRequest(opts, io, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: codeVerifier,
      });
    },
    refresh(refreshToken, io) {
      return tokenRequest(opts, io, { grant_type: 'refresh_token', refresh_token: refreshToken });
    },
    fetchProfile,
  };
}
