import { AppError } from '../../errors.js';
import { PlatformError, type OAuthProvider, type PlatformIO, type PlatformProfile, type TokenSet } from '../types.js';
import { requestTokens, requestedScopes } from '../oauth-token.js';
import { xRequest, type TwitterOptions } from './api.js';

/**
 * What Herald asks for: post, read the profile, upload media, a refresh token (offline.access), and for
 * the inbox: direct messages (dm.read, dm.write), likes (like.write) and hiding replies
 * (tweet.moderate.write).
 */
export const TWITTER_SCOPES = [
  'tweet.read',
  'tweet.write',
  'users.read',
  'offline.access',
  'media.write',
  'dm.read',
  'dm.write',
  'like.write',
  'tweet.moderate.write',
  'bookmark.write',
  'follows.write',
];

function requireClient(opts: TwitterOptions): { clientId: string; clientSecret: string | null } {
  if (!opts.clientId) {
    throw new AppError(
      'invalid',
      'platform_not_configured',
      'X is not configured on this server: set TWITTER_CLIENT_ID and TWITTER_CLIENT_SECRET',
    );
  }
  return { clientId: opts.clientId, clientSecret: opts.clientSecret };
}

/**
 * POST /2/oauth2/token (form). Confidential clients authenticate with HTTP Basic; public clients send
 * `client_id` in the body. https://docs.x.com/fundamentals/authentication/oauth-2-0/user-access-token
 */
async function tokenRequest(opts: TwitterOptions, io: PlatformIO, params: Record<string, string>): Promise<TokenSet> {
  const { clientId, clientSecret } = requireClient(opts);
  const url = `${opts.apiUrl}/2/oauth2/token`;
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const form = new URLSearchParams(params);
  if (clientSecret) headers.authorization = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
  else form.set('client_id', clientId);
  return requestTokens(io, {
    url,
    headers,
    form,
    platform: 'X',
    scopeSeparator: ' ',
    // X answers a dead refresh token or code with 400 invalid_request ("Value passed for the token was
    // invalid.") rather than the RFC's invalid_grant; both mean the grant is gone.
    isDeadGrant: (status, body) =>
      status === 400 &&
      (body?.error === 'invalid_grant' ||
        (body?.error === 'invalid_request' && /token|code/i.test(String(body?.error_description ?? '')))),
  });
}

export function twitterOAuth(opts: TwitterOptions): OAuthProvider {
  return {
    authorizeUrl({ state, redirectUri, codeChallenge, scopes, extraScopes }) {
      const { clientId } = requireClient(opts);
      const q = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: requestedScopes(TWITTER_SCOPES, { scopes, extraScopes }),
        state,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
      });
      return `${opts.authUrl}/i/oauth2/authorize?${q}`;
    },
    exchangeCode({ code, redirectUri, codeVerifier }, io) {
      return tokenRequest(opts, io, {
        code,
        grant_type: 'authorization_code',
        redirect_uri: redirectUri,
        code_verifier: codeVerifier,
      });
    },
    refresh(refreshToken, io) {
      return tokenRequest(opts, io, { grant_type: 'refresh_token', refresh_token: refreshToken });
    },
    async fetchProfile(tokens, io): Promise<PlatformProfile> {
      const res = await xRequest(io, {
        method: 'GET',
        url: `${opts.apiUrl}/2/users/me?user.fields=name,username,profile_image_url,verified`,
        token: tokens.accessToken,
      });
      const user = res.body?.data;
      if (!user?.id || !user?.username)
        throw new PlatformError('unavailable', 'X returned no user for /2/users/me', { endpoint: '/2/users/me' });
      return {
        platformUserId: String(user.id),
        username: String(user.username),
        displayName: user.name ?? null,
        profileUrl: `https://x.com/${user.username}`,
        avatarUrl: user.profile_image_url ?? null,
        metadata: { verified: user.verified === true },
      };
    },
  };
}
