import { AppError } from '../../errors.js';
import { PlatformError, type OAuthProvider, type PlatformIO, type PlatformProfile, type TokenSet } from '../types.js';
import { slackCall, type SlackAnswer, type SlackOptions } from './api.js';

/**
 * The bot scopes Herald asks for (https://api.slack.com/scopes): post and delete its messages, with a
 * per-message name and icon; list, join and read the channels it posts to; upload files; list the
 * workspace's members and read its name and icon.
 */
export const SLACK_DEFAULT_SCOPES = [
  'chat:write',
  'chat:write.customize',
  'channels:read',
  'groups:read',
  'channels:join',
  'channels:history',
  'groups:history',
  'files:write',
  'users:read',
  'team:read',
];

function requireClient(opts: SlackOptions): { clientId: string; clientSecret: string } {
  if (!opts.clientId || !opts.clientSecret) {
    throw new AppError(
      'invalid',
      'platform_not_configured',
      'Slack is not configured on this server: set SLACK_CLIENT_ID and SLACK_CLIENT_SECRET',
    );
  }
  return { clientId: opts.clientId, clientSecret: opts.clientSecret };
}

/** Errors of oauth.v2.access that mean the code or refresh token is dead (https://api.slack.com/methods/oauth.v2.access#errors). */
const DEAD_CODE = new Set([
  'invalid_code',
  'code_already_used',
  'invalid_refresh_token',
  'invalid_grant_type',
  'token_revoked',
  'bad_redirect_uri',
]);

/**
 * POST oauth.v2.access (form; the app authenticates with HTTP Basic). The answer is the bot token
 * (`xoxb-`, token_type `bot`) with the workspace (`team`) and the bot user; with token rotation on, a
 * `refresh_token` and `expires_in` too (https://api.slack.com/authentication/rotation). Slack answers
 * errors as HTTP 200 `{ok: false, error}`.
 */
async function tokenRequest(opts: SlackOptions, io: PlatformIO, params: Record<string, string>): Promise<TokenSet> {
  const { clientId, clientSecret } = requireClient(opts);
  let answer: SlackAnswer;
  try {
    answer = await slackCall(opts, io, 'oauth.v2.access', {
      params,
      basic: Buffer.from(`${clientId}:${clientSecret}`).toString('base64'),
    });
  } catch (error) {
    // A token request is never ambiguous: nothing is published by it.
    if (error instanceof PlatformError && error.platformCode && DEAD_CODE.has(error.platformCode)) {
      throw new PlatformError('auth', error.message, {
        status: error.status,
        endpoint: error.endpoint,
        raw: error.raw,
        platformCode: error.platformCode,
        revoked: true,
      });
    }
    if (error instanceof PlatformError && error.kind === 'ambiguous')
      throw new PlatformError('unavailable', error.message, { endpoint: error.endpoint, cause: error });
    throw error;
  }
  if (typeof answer.access_token !== 'string')
    throw new PlatformError('rejected', 'Slack oauth.v2.access answered without an access token', {
      endpoint: 'oauth.v2.access',
    });
  const expiresIn = Number(answer.expires_in);
  return {
    accessToken: answer.access_token,
    refreshToken: typeof answer.refresh_token === 'string' ? answer.refresh_token : null,
    expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(io.now().getTime() + expiresIn * 1000) : null,
    scopes: typeof answer.scope === 'string' ? answer.scope.split(',').filter(Boolean) : null,
  };
}

export function slackOAuth(opts: SlackOptions): OAuthProvider {
  return {
    // Slack's OAuth v2 documents no PKCE for apps with a secret: the challenge is not sent.
    authorizeUrl({ state, redirectUri, scopes, extraScopes }) {
      const { clientId } = requireClient(opts);
      const q = new URLSearchParams({
        client_id: clientId,
        // Bot scopes are comma-separated (https://api.slack.com/authentication/oauth-v2#asking).
        scope: [...new Set([...(scopes ?? opts.scopes), ...(extraScopes ?? [])])].join(','),
        redirect_uri: redirectUri,
        state,
      });
      return `${opts.authUrl}/oauth/v2/authorize?${q}`;
    },
    exchangeCode({ code, redirectUri }, io) {
      return tokenRequest(opts, io, { code, redirect_uri: redirectUri });
    },
    refresh(refreshToken, io) {
      return tokenRequest(opts, io, { grant_type: 'refresh_token', refresh_token: refreshToken });
    },
    /**
     * The workspace the bot was installed in: auth.test (team id, workspace URL, bot user) and team.info
     * (its name and icon). The workspace is who connected; each channel chosen becomes an account.
     */
    async fetchProfile(tokens, io): Promise<PlatformProfile> {
      const who = await slackCall(opts, io, 'auth.test', { token: tokens.accessToken });
      const info = await slackCall(opts, io, 'team.info', { token: tokens.accessToken }).catch(() => null);
      const team = info?.team as { name?: string; domain?: string; icon?: { image_132?: string } } | undefined;
      const teamName = team?.name ?? String(who.team ?? who.team_id);
      return {
        platformUserId: String(who.team_id),
        username: team?.domain ?? teamName,
        displayName: teamName,
        profileUrl: typeof who.url === 'string' ? who.url : null,
        avatarUrl: team?.icon?.image_132 ?? null,
        metadata: {
          teamId: who.team_id,
          teamName,
          teamUrl: who.url ?? null,
          teamIcon: team?.icon?.image_132 ?? null,
          botUserId: who.user_id ?? null,
        },
      };
    },
  };
}
