import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import type { Platform, PlatformProfile, TokenSet } from '../../platforms/types.js';
import { findAccountByIdentity } from '../../store/accounts.js';
import { findProfile } from '../../store/profiles.js';
import { saveConnectedAccount } from '../accounts/save-account.js';
import { assertProfileVisible, type Principal } from '../principal.js';
import { writeConnectionLog } from './connection-log.js';

/** Helpers every connect flow shares: profile checks, token (de)serialization, saving with a log. */

/** The OAuth state record (sealed at rest). */
export interface OAuthStateData {
  codeVerifier: string;
  redirectUrl: string | null;
  headless: boolean;
  /** The X-Connect-Token issued with this flow (selection calls). */
  connectToken: string;
}

/** Tokens and profile kept server-side behind a temp token while the user picks an organization. */
export interface TempConnectData {
  tokens: SerializedTokens;
  profile: PlatformProfile;
  redirectUrl: string | null;
  connectToken: string;
}

export interface SerializedTokens {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: string | null;
  scopes: string[] | null;
}

export const serializeTokens = (t: TokenSet): SerializedTokens => ({
  accessToken: t.accessToken,
  refreshToken: t.refreshToken ?? null,
  expiresAt: t.expiresAt ? t.expiresAt.toISOString() : null,
  scopes: t.scopes ?? null,
});
export const deserializeTokens = (t: SerializedTokens): TokenSet => ({
  accessToken: t.accessToken,
  refreshToken: t.refreshToken,
  expiresAt: t.expiresAt ? new Date(t.expiresAt) : null,
  scopes: t.scopes,
});

export async function assertOwnProfile(
  ctx: AppContext,
  caller: Pick<Principal, 'tenantId' | 'profileIds'>,
  profileId: string,
) {
  assertProfileVisible(caller as Principal, profileId);
  const profile = await findProfile(ctx.db.kysely, caller.tenantId, profileId);
  if (!profile) throw notFound('Profile', 'profile_not_found');
  return profile;
}

export function appendParams(url: string, params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

/** Saves (or reconnects) the account and writes the connection log. */
export async function saveWithLog(
  ctx: AppContext,
  flow: { platform: Platform; tenantId: string; userId: string | null; profileId: string; state?: OAuthStateData },
  tokens: TokenSet | null,
  profile: PlatformProfile,
  startedMs: number,
  opts: { metadata?: Record<string, unknown>; method?: 'oauth' | 'credentials'; accountType?: string | null },
) {
  const existing = await findAccountByIdentity(
    ctx.db.kysely,
    flow.tenantId,
    flow.profileId,
    flow.platform,
    profile.platformUserId,
  );
  const result = await saveConnectedAccount(ctx, {
    tenantId: flow.tenantId,
    profileId: flow.profileId,
    platform: flow.platform,
    profile,
    tokens,
    metadata: opts.metadata,
  });
  await writeConnectionLog(ctx, ctx.db.kysely, {
    tenantId: flow.tenantId,
    userId: flow.userId,
    profileId: flow.profileId,
    accountId: result.account.account_id,
    platform: flow.platform,
    eventType: existing ? 'reconnect_success' : 'connect_success',
    method: opts.method ?? 'oauth',
    success: {
      displayName: result.account.display_name,
      username: result.account.username,
      profilePicture: result.account.avatar_url,
      permissions: tokens?.scopes ?? [],
      tokenExpiresAt: result.account.token_expires_at,
      accountType: opts.accountType ?? null,
    },
    context: {
      isHeadlessMode: flow.state?.headless ?? false,
      hasCustomRedirectUrl: (flow.state?.redirectUrl ?? null) !== null,
      isReconnection: Boolean(existing),
      isBYOK: false,
    },
    startedMs,
  });
  return result;
}
