import { googleOAuth } from '../google-oauth.js';
import { PlatformError, type OAuthProvider, type PlatformIO, type PlatformProfile } from '../types.js';
import { gbpRequest, type GoogleBusinessOptions } from './api.js';

/** Every Business Profile API call takes this one scope (https://developers.google.com/my-business/content/basic-setup). */
export const GOOGLEBUSINESS_DEFAULT_SCOPES = ['https://www.googleapis.com/auth/business.manage'];

/** The Google accounts of the token's user (Account Management accounts.list). */
export async function listAccounts(
  opts: GoogleBusinessOptions,
  io: PlatformIO,
  accessToken: string,
): Promise<{ name: string; accountName?: string; type?: string }[]> {
  const res = await gbpRequest(io, {
    method: 'GET',
    url: `${opts.accountsUrl}/v1/accounts?pageSize=20`,
    token: accessToken,
  });
  return res.body?.accounts ?? [];
}

export function googleBusinessOAuth(opts: GoogleBusinessOptions): OAuthProvider {
  /** The user's first Business Profile account: the connected user (a location is chosen next). */
  return googleOAuth(
    { ...opts, name: 'Google Business', envPrefix: 'GOOGLEBUSINESS' },
    async (tokens, io): Promise<PlatformProfile> => {
      const [account] = await listAccounts(opts, io, tokens.accessToken);
      if (!account?.name) {
        throw new PlatformError(
          'rejected',
          'this Google account manages no Business Profile: create one on business.google.com, then connect again',
          { endpoint: '/v1/accounts' },
        );
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
  );
}
