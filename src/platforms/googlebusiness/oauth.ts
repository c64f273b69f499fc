import { AppError } from '../../errors.js';
import { requestTokens } from '../oauth-token.js';
import { PlatformError, type OAuthProvider, type PlatformIO, type PlatformProfile, type TokenSet } from '../types.js';
import { gbpRequest, type GoogleBusinessOptions } from './api.js';

/** Every Business Profile API call takes this one scope (https://developers.google.com/my-business/content/basic-setup). */
export const GOOGLEBUSINESS_DEFAULT_SCOPES = ['https://www.googleapis.com/auth/business.manage'];

function requireClient(opts: GoogleBusinessOptions): { clientId: string; clientSecret: string } {
  if (!opts.clientId || !opts.clientSecret) {
    throw new AppError('invalid', 'platform_not_configured', 'Google Business is not configured on this server: set GOOGLEBUSINESS_CLIENT_ID and GOOGLEBUSINESS_CLIENT_SECRET');
  }
  return { clientId: opts.clientId, clientSecret: opts.clientSecret };
}

/** POST https://oauth2.googleapis.com/token (form, client secret in the body). A dead grant is `invalid_grant`. */
function tokenRequest(opts: GoogleBusinessOptions, io: PlatformIO, params: Record<string, string>): Promise<TokenSet> {
  const { clientId, clientSecret } = requireClient(opts);
  return requestTokens(io, {
    url: `${opts.tokenUrl}/token`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    form: new URLSearchParams({ ...params, client_id: clientId, client_secret: clientSecret }),
    platform: 'Google',
    scopeSeparator: ' ',
    isDeadGrant: (_status, body) => body?.error === 'invalid_grant',
  });
}

/** The Google accounts of the token's user (Account Management accounts.list). */
export async function listAccounts(opts: GoogleBusinessOptions, io: PlatformIO, accessToken: string): Promise<{ name: string; accountName?: string; type?: string }[]> {
  const res = await gbpRequest(io, { method: 'GET', url: `${opts.accountsUrl}/v1/accounts?pageSize=20`, token: accessToken });
  return res.body?.accounts ?? [];
}

export function googleBusinessOAuth(opts: GoogleBusinessOptions): OAuthProvider {
  return {
    /**
     * Google's web server flow with `access_type=offline` for a refresh token and `prompt=consent`, since
     * Google sends the refresh token only on a consent screen (https://developers.google.com/identity/protocols/oauth2/web-server).
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
    /** The user's first Business Profile account: the connected user (a location is chosen next). */
    async fetchProfile(tokens, io): Promise<PlatformProfile> {
      const [account] = await listAccounts(opts, io, tokens.accessToken);
      if (!account?.name) {
        throw new PlatformError('rejected', 'this Google account manages no Business Profile: create one on business.google.com, then connect again', { endpoint: '/v1/accounts' });
      }
      const id = account.name.replace(/^accounts\//, '');
      return {
        platformUserId: id,
        username: account.accountName ?? id,
        displayName: account.accountName ?? id,
        profileUrl: null,
        avatarUrl: null,
        metadata: { googleAccountId: account.name, accountName: account.accountName ?? null },
      };
    },
  };
}
