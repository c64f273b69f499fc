import { AppError } from '../../errors.js';
import { PlatformError, type OAuthProvider, type PlatformIO, type PlatformProfile, type TokenSet } from '../types.js';
import { requestTokens, requestedScopes } from '../oauth-token.js';
import { liRequest, type LinkedInOptions } from './api.js';

/** Member posting plus company pages (Community Management API) and OpenID profile. */
export const LINKEDIN_DEFAULT_SCOPES = [
  'openid',
  'profile',
  'email',
  'w_member_social',
  'w_organization_social',
  'r_organization_social',
  'rw_organization_admin',
];

function requireClient(opts: LinkedInOptions): { clientId: string; clientSecret: string } {
  if (!opts.clientId || !opts.clientSecret) {
    throw new AppError(
      'invalid',
      'platform_not_configured',
      'LinkedIn is not configured on this server: set LINKEDIN_CLIENT_ID and LINKEDIN_CLIENT_SECRET',
    );
  }
  return { clientId: opts.clientId, clientSecret: opts.clientSecret };
}

/**
 * POST /oauth/v2/accessToken (form; the client secret goes in the body).
 * https://learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow
 */
async function tokenRequest(opts: LinkedInOptions, io: PlatformIO, params: Record<string, string>): Promise<TokenSet> {
  const { clientId, clientSecret } = requireClient(opts);
  const url = `${opts.authUrl}/oauth/v2/accessToken`;
  const form = new URLSearchParams({ ...params, client_id: clientId, client_secret: clientSecret });
  return requestTokens(io, {
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    form,
    platform: 'LinkedIn',
    scopeSeparator: /[ ,]/,
    isDeadGrant: (_status, body) => body?.error === 'invalid_grant',
  });
}

export function linkedInOAuth(opts: LinkedInOptions): OAuthProvider {
  return {
    // LinkedIn's web flow has no PKCE: the code challenge is not sent (the client secret protects the exchange).
    authorizeUrl({ state, redirectUri, scopes, extraScopes }) {
      const { clientId } = requireClient(opts);
      const q = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        state,
        scope: requestedScopes(opts.scopes, { scopes, extraScopes }),
      });
      return `${opts.authUrl}/oauth/v2/authorization?${q}`;
    },
    exchangeCode({ code, redirectUri }, io) {
      return tokenRequest(opts, io, { grant_type: 'authorization_code', code, redirect_uri: redirectUri });
    },
    refresh(refreshToken, io) {
      return tokenRequest(opts, io, { grant_type: 'refresh_token', refresh_token: refreshToken });
    },
    /** OpenID userinfo: `sub` is the member id of `urn:li:person:{sub}`. */
    async fetchProfile(tokens, io): Promise<PlatformProfile> {
      const res = await liRequest(opts, io, {
        method: 'GET',
        url: `${opts.apiUrl}/v2/userinfo`,
        token: tokens.accessToken,
      });
      const user = res.body;
      if (!user?.sub)
        throw new PlatformError('unavailable', 'LinkedIn returned no member for /v2/userinfo', {
          endpoint: '/v2/userinfo',
        });
      const name = user.name ?? ([user.given_name, user.family_name].filter(Boolean).join(' ') || null);
      return {
        platformUserId: String(user.sub),
        // LinkedIn exposes no handle through OpenID; the display name stands in for it.
        username: name ?? String(user.sub),
        displayName: name,
        profileUrl: null,
        avatarUrl: user.picture ?? null,
        metadata: {
          personUrn: `urn:li:person:${user.sub}`,
          email: user.email ?? null,
          accountType: 'personal',
          organizationUrn: null,
        },
      };
    },
  };
}
