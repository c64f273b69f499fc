import type { AppContext } from '../../context.js';
import { newId } from '../../lib/ids.js';
import type { Executor } from '../../store/db.js';
import { findAccountByIdentity, insertAccount, updateAccount, type AccountRow } from '../../store/accounts.js';
import type { AccountCredentials, Platform, PlatformProfile, TokenSet } from '../../platforms/types.js';

export interface SaveAccountInput {
  tenantId: string;
  profileId: string;
  platform: Platform;
  profile: PlatformProfile;
  tokens: TokenSet | null;
  /** Merged over the stored metadata (chat id, PDS url, page id...). */
  metadata?: Record<string, unknown>;
}

/**
 * Stores a connected account, or updates it when the same platform user is connected again to the same
 * profile (reconnect): new tokens replace old ones, but a refresh token is kept when the platform sent
 * none. Emits `account.connected` in the same transaction. Returns the row and whether it was new.
 */
export async function saveConnectedAccount(
  ctx: AppContext,
  input: SaveAccountInput,
): Promise<{ account: AccountRow; created: boolean }> {
  const now = ctx.clock.now();
  const iso = now.toISOString();
  return ctx.db.transaction(async (tx) => {
    const existing = await findAccountByIdentity(
      tx,
      input.tenantId,
      input.profileId,
      input.platform,
      input.profile.platformUserId,
    );
    const sealed = sealTokens(ctx, input.tokens, existing);
    let account: AccountRow;
    if (existing) {
      const patch = {
        username: input.profile.username,
        display_name: input.profile.displayName ?? existing.display_name,
        profile_url: input.profile.profileUrl ?? existing.profile_url,
        avatar_url: input.profile.avatarUrl ?? existing.avatar_url,
        is_active: 1,
        ...sealed,
        metadata: JSON.stringify({ ...JSON.parse(existing.metadata), ...input.profile.metadata, ...input.metadata }),
        updated_at: iso,
        disconnected_at: null,
      };
      await updateAccount(tx, existing.tenant_id, existing.account_id, patch);
      account = { ...existing, ...patch };
    } else {
      account = {
        account_id: newId(now),
        tenant_id: input.tenantId,
        profile_id: input.profileId,
        platform: input.platform,
        platform_user_id: input.profile.platformUserId,
        username: input.profile.username,
        display_name: input.profile.displayName ?? null,
        profile_url: input.profile.profileUrl ?? null,
        avatar_url: input.profile.avatarUrl ?? null,
        is_active: 1,
        ...sealed,
        metadata: JSON.stringify({ ...input.profile.metadata, ...input.metadata }),
        created_at: iso,
        updated_at: iso,
        disconnected_at: null,
      };
      await insertAccount(tx, account);
    }
    await emitAccountConnected(ctx, tx, account, now);
    return { account, created: !existing };
  });
}

/** The token columns for `tokens`, sealed; the stored ones where `tokens` (or its refresh token) is absent. */
export function sealTokens(ctx: AppContext, tokens: TokenSet | null, existing: AccountRow | undefined) {
  if (!tokens) {
    return {
      access_token: existing?.access_token ?? null,
      refresh_token: existing?.refresh_token ?? null,
      token_expires_at: existing?.token_expires_at ?? null,
      scopes: existing?.scopes ?? null,
    };
  }
  return {
    access_token: ctx.secrets.seal(tokens.accessToken),
    // NOTE: platforms often omit the refresh token on reconnect; dropping the stored one would force
    // the user through OAuth again when the access token expires.
    refresh_token: tokens.refreshToken ? ctx.secrets.seal(tokens.refreshToken) : (existing?.refresh_token ?? null),
    token_expires_at: tokens.expiresAt ? tokens.expiresAt.toISOString() : null,
    scopes: tokens.scopes ? tokens.scopes.join(' ') : (existing?.scopes ?? null),
  };
}

async function emitAccountConnected(ctx: AppContext, tx: Executor, account: AccountRow, now: Date): Promise<void> {
  await ctx.events.emit(
    tx,
    account.tenant_id,
    'account.connected',
    {
      account: {
        accountId: account.account_id,
        profileId: account.profile_id,
        platform: account.platform,
        username: account.username,
        displayName: account.display_name ?? account.username,
      },
    },
    now,
  );
}

/** Decrypts an account's tokens for an adapter. */
export function accountCredentials(ctx: AppContext, row: AccountRow): AccountCredentials {
  return {
    accountId: row.account_id,
    platformUserId: row.platform_user_id,
    username: row.username,
    accessToken: row.access_token ? ctx.secrets.open(row.access_token) : null,
    refreshToken: row.refresh_token ? ctx.secrets.open(row.refresh_token) : null,
    tokenExpiresAt: row.token_expires_at ? new Date(row.token_expires_at) : null,
    scopes: row.scopes ? row.scopes.split(/[\s,]+/).filter(Boolean) : null,
    metadata: JSON.parse(row.metadata),
  };
}
