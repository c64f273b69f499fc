import { AppError } from '../../errors.js';
import { requestTokens } from '../oauth-token.js';
import { PlatformError, type OAuthProvider, type PlatformIO, type PlatformProfile, type TokenSet } from '../types.js';
import { ttRequest, type TikTokOptions } from './api.js';
import { queryCreator } from './creator.js';

/**
 * Basic profile, direct posting, inbox uploads (drafts), and the analytics reads: the creator's videos
 * with their counts (video.list) and follower count (user.info.stats).
 * https://developers.tiktok.com/doc/tiktok-api-scopes
 */
export const TIKTOK_DEFAULT_SCOPES = [
  'user.info.basic',
  'video.publish',
  'video.upload',
  'video.list',
  'user.info.stats',
];

function requireClient(opts: TikTokOptions): { clientKey: string; clientSecret: string } {
  if (!opts.clientKey || !opts.clientSecret) {
    throw new AppError(
      'invalid',
      'platform_not_configured',
      'TikTok is not configured on this server: set TIKTOK_CLIENT_KEY and TIKTOK_CLIENT_SECRET',
    );
  }
  return { clientKey: opts.clientKey, clientSecret: opts.clientSecret };
}

/**
 * POST /v2/oauth/token/ (form; the client is `client_key` + `client_secret` in the body). Refresh tokens
 * rotate: the answer's refresh token replaces the stored one. A dead grant is `invalid_grant`.
 * https://developers.tiktok.com/doc/oauth-user-access-token-management
 */
function tokenRequest(opts: TikTokOptions, io: PlatformIO, params: Record<string, string>): Promise<TokenSet> {
  const { clientKey, clientSecret } = requireClient(opts);
  return requestTokens(io, {
    url: `${opts.apiUrl}/v2/oauth/token/`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'cache-control': 'no-cache' },
    form: new URLSearchParams({ ...params, client_key: clientKey, client_secret: clientSecret }),
    platform: 'TikTok',
    scopeSeparator: /[ ,]+/,
    isDeadGrant: (_status, body) => body?.error === 'invalid_grant',
  });
}

/** The creator's options as account metadata (`creatorInfo`): what creation-time checks read. */
export async function creatorMetadata(
  opts: TikTokOptions,
  io: PlatformIO,
  accessToken: string,
): Promise<Record<string, unknown>> {
  const creator = await queryCreator(opts, io, accessToken);
  return { creatorInfo: { ...creator, checkedAt: io.now().toISOString() } };
}

export function tikTokOAuth(opts: TikTokOptions): OAuthProvider {
  return {
    /**
     * https://www.tiktok.com/v2/auth/authorize/ with `client_key` and comma-separated scopes. TikTok's
     * PKCE challenge is the hex SHA-256 of the verifier (https://developers.tiktok.com/doc/login-kit-desktop),
     * not base64url: Herald's S256 challenge is the same digest, re-encoded.
     */
    authorizeUrl({ state, redirectUri, codeChallenge, scopes }) {
      const { clientKey } = requireClient(opts);
      const q = new URLSearchParams({
        client_key: clientKey,
        response_type: 'code',
        scope: (scopes ?? opts.scopes).join(','),
        redirect_uri: redirectUri,
        state,
        code_challenge: Buffer.from(codeChallenge, 'base64url').toString('hex'),
        code_challenge_method: 'S256',
      });
      return `${opts.authUrl}/v2/auth/authorize/?${q}`;
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
    /**
     * GET /v2/user/info/ (open_id, display name, avatar: https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info),
     * then creator_info/query for the handle and the posting options kept in the account's metadata.
     */
    async fetchProfile(tokens, io): Promise<PlatformProfile> {
      const res = await ttRequest(io, {
        method: 'GET',
        url: `${opts.apiUrl}/v2/user/info/?fields=open_id,union_id,avatar_url,display_name`,
        token: tokens.accessToken,
      });
      const user = res.body?.data?.user;
      if (typeof user?.open_id !== 'string' || !user.open_id) {
        throw new PlatformError('rejected', 'TikTok answered the user info without an open_id', {
          endpoint: '/v2/user/info/',
        });
      }
      const metadata = await creatorMetadata(opts, io, tokens.accessToken);
      const creator = metadata.creatorInfo as { username: string | null; avatarUrl: string | null };
      const username = creator.username ?? user.display_name ?? user.open_id;
      return {
        platformUserId: user.open_id,
        username,
        displayName: user.display_name ?? username,
        profileUrl: creator.username ? `https://www.tiktok.com/@${encodeURIComponent(creator.username)}` : null,
        avatarUrl: user.avatar_url ?? creator.avatarUrl ?? null,
        metadata: { openId: user.open_id, ...(user.union_id ? { unionId: user.union_id } : {}), ...metadata },
      };
    },
  };
}
