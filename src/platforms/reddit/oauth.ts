import { AppError } from '../../errors.js';
import { requestTokens } from '../oauth-token.js';
import type { OAuthProvider, PlatformIO, PlatformProfile, TokenSet } from '../types.js';
import { rdRequest, type RateWindows, type RedditOptions } from './api.js';

/**
 * https://www.reddit.com/api/v1/scopes: `identity` (/api/v1/me), `submit` (/api/submit, media
 * leases), `edit` (/api/del), `read` (about, listings, search), `history` (the user's submitted
 * listing, which finds media posts), `flair` (link_flair_v2), `mysubreddits` (the subscriptions), and
 * for the inbox `privatemessages` (/message/*, replies to messages) and `vote` (liking a comment).
 */
export const REDDIT_DEFAULT_SCOPES = [
  'identity',
  'submit',
  'edit',
  'read',
  'history',
  'flair',
  'mysubreddits',
  'privatemessages',
  'vote',
];

function requireClient(opts: RedditOptions): { clientId: string; clientSecret: string } {
  if (!opts.clientId || !opts.clientSecret) {
    throw new AppError(
      'invalid',
      'platform_not_configured',
      'Reddit is not configured on this server: set REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET',
    );
  }
  return { clientId: opts.clientId, clientSecret: opts.clientSecret };
}

/**
 * POST https://www.reddit.com/api/v1/access_token: the client authenticates with HTTP Basic only (a
 * client id in the form is refused), and the User-Agent rule applies here too. A refresh token that is
 * revoked or unknown is 400 `invalid_grant`: a dead grant, the account must reconnect.
 * https://github.com/reddit-archive/reddit/wiki/OAuth2
 */
function tokenRequest(opts: RedditOptions, io: PlatformIO, params: Record<string, string>): Promise<TokenSet> {
  const { clientId, clientSecret } = requireClient(opts);
  return requestTokens(io, {
    url: `${opts.authUrl}/api/v1/access_token`,
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
      'user-agent': opts.userAgent,
    },
    form: new URLSearchParams(params),
    platform: 'Reddit',
    scopeSeparator: /[ ,]+/,
    isDeadGrant: (_status, body) => body?.error === 'invalid_grant',
  });
}

export function redditOAuth(opts: RedditOptions, windows: RateWindows): OAuthProvider {
  return {
    /**
     * `duration=permanent` for a refresh token (a temporary grant ends after an hour with none). Reddit
     * has no PKCE: the code challenge is not sent (the state still binds the callback).
     */
    authorizeUrl({ state, redirectUri, scopes }) {
      const { clientId } = requireClient(opts);
      const q = new URLSearchParams({
        client_id: clientId,
        response_type: 'code',
        state,
        redirect_uri: redirectUri,
        duration: 'permanent',
        scope: (scopes ?? opts.scopes).join(' '),
      });
      return `${opts.authUrl}/api/v1/authorize?${q}`;
    },
    exchangeCode({ code, redirectUri }, io) {
      return tokenRequest(opts, io, { grant_type: 'authorization_code', code, redirect_uri: redirectUri });
    },
    // A permanent grant's refresh answers a new access token and no new refresh token: the stored one stays.
    refresh(refreshToken, io) {
      return tokenRequest(opts, io, { grant_type: 'refresh_token', refresh_token: refreshToken });
    },
    /** GET /api/v1/me: the user's id (t2 without its prefix) and name. */
    async fetchProfile(tokens, io): Promise<PlatformProfile> {
      const res = await rdRequest(opts, windows, io, { method: 'GET', path: '/api/v1/me', token: tokens.accessToken });
      const me = res.body ?? {};
      const name = String(me.name ?? '');
      const icon = typeof me.icon_img === 'string' && me.icon_img ? me.icon_img.replace(/&amp;/g, '&') : null;
      return {
        platformUserId: String(me.id ?? name),
        username: name,
        displayName: name,
        profileUrl: `https://www.reddit.com/user/${name}/`,
        avatarUrl: icon,
        metadata: { redditUserId: me.id ? `t2_${me.id}` : null },
      };
    },
  };
}
