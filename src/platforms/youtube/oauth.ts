import { AppError } from '../../errors.js';
import { requestTokens } from '../oauth-token.js';
import { PlatformError, type OAuthProvider, type PlatformIO, type PlatformProfile, type TokenSet } from '../types.js';
import { ytRequest, type YouTubeOptions } from './api.js';

/**
 * Uploads, the channel's details and uploads playlist, and comments (force-ssl is the scope that lets
 * commentThreads.insert write). https://developers.google.com/youtube/v3/guides/auth/server-side-web-apps
 */
export const YOUTUBE_DEFAULT_SCOPES = [
  'https://www.googleapis.com/auth/youtube.upload',
  'https://www.googleapis.com/auth/youtube.readonly',
  'https://www.googleapis.com/auth/youtube.force-ssl',
];

function requireClient(opts: YouTubeOptions): { clientId: string; clientSecret: string } {
  if (!opts.clientId || !opts.clientSecret) {
    throw new AppError('invalid', 'platform_not_configured', 'YouTube is not configured on this server: set YOUTUBE_CLIENT_ID and YOUTUBE_CLIENT_SECRET');
  }
  return { clientId: opts.clientId, clientSecret: opts.clientSecret };
}

/** POST https://oauth2.googleapis.com/token (form, client secret in the body). A dead grant is `invalid_grant`. */
function tokenRequest(opts: YouTubeOptions, io: PlatformIO, params: Record<string, string>): Promise<TokenSet> {
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

export function youTubeOAuth(opts: YouTubeOptions): OAuthProvider {
  return {
    /**
     * `access_type=offline` for a refresh token, and `prompt=consent` because Google sends the refresh
     * token only on a consent screen: reconnecting an account that already granted access would otherwise
     * come back without one. PKCE (S256) as Google supports it for web clients.
     */
    authorizeUrl({ state, redirectUri, codeChallenge, scopes }) {
      const { clientId } = requireClient(opts);
      const q = new URLSearchParams({
        client_id: clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: (scopes ?? opts.scopes).join(' '),
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
      return tokenRequest(opts, io, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: codeVerifier });
    },
    refresh(refreshToken, io) {
      return tokenRequest(opts, io, { grant_type: 'refresh_token', refresh_token: refreshToken });
    },
    /** The Google account's channel (`channels?part=snippet,contentDetails&mine=true`): YouTube's one destination. */
    async fetchProfile(tokens, io): Promise<PlatformProfile> {
      const res = await ytRequest(io, { method: 'GET', url: `${opts.apiUrl}/youtube/v3/channels?part=snippet,contentDetails&mine=true`, token: tokens.accessToken });
      const channel = res.body?.items?.[0];
      if (!channel?.id) {
        throw new PlatformError('rejected', 'this Google account has no YouTube channel: create one on youtube.com, then connect again', { platformCode: 'youtubeSignupRequired', endpoint: '/youtube/v3/channels' });
      }
      const title: string = channel.snippet?.title ?? channel.id;
      const handle: string | null = channel.snippet?.customUrl ?? null;
      return {
        platformUserId: channel.id,
        username: handle ? handle.replace(/^@/, '') : title,
        displayName: title,
        profileUrl: handle ? `https://www.youtube.com/${handle.startsWith('@') ? handle : `@${handle}`}` : `https://www.youtube.com/channel/${channel.id}`,
        avatarUrl: channel.snippet?.thumbnails?.default?.url ?? null,
        metadata: { channelId: channel.id, channelTitle: title, uploadsPlaylistId: channel.contentDetails?.relatedPlaylists?.uploads ?? null },
      };
    },
  };
}
