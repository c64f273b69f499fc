import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import { findAccountById, updateAccount, type AccountRow } from '../../store/accounts.js';
import { createPlatformIO, type CallRecord } from '../../platforms/io.js';
import { isPlatform } from '../../platforms/catalogue.js';
import { PlatformError, type PlatformIO } from '../../platforms/types.js';
import { markAccountDisconnected } from './disconnect.js';
import { mergeAccountMetadata } from './manage.js';
import { accountCredentials } from './save-account.js';

export type RefreshOutcome = 'refreshed' | 'not_supported' | 'disconnected';

/**
 * Refreshes an account's tokens through its adapter and stores them (keeping the refresh token when the
 * platform sent none). A revoked grant (`auth` with `revoked`) disconnects the account once, with
 * `account.disconnected` (`unintentional`). Transient failures (5xx, timeouts) throw a PlatformError of
 * kind `unavailable`/`rate_limited` for the caller to retry: they are never a disconnect.
 */
export async function refreshAccountTokens(
  ctx: AppContext,
  account: AccountRow,
  opts: { io?: PlatformIO; onCall?: (call: CallRecord) => void } = {},
): Promise<RefreshOutcome> {
  if (!isPlatform(account.platform))
    throw new AppError('internal', 'unknown_platform', `unknown platform ${account.platform}`);
  const adapter = ctx.platforms.get(account.platform);
  if (!adapter?.refreshTokens) return 'not_supported';
  const io = opts.io ?? createPlatformIO({ now: () => ctx.clock.now(), onCall: opts.onCall });
  try {
    const tokens = await adapter.refreshTokens(accountCredentials(ctx, account), io);
    const now = ctx.clock.now();
    await updateAccount(ctx.db.kysely, account.tenant_id, account.account_id, {
      access_token: ctx.secrets.seal(tokens.accessToken),
      ...(tokens.refreshToken ? { refresh_token: ctx.secrets.seal(tokens.refreshToken) } : {}),
      token_expires_at: tokens.expiresAt ? tokens.expiresAt.toISOString() : null,
      // An empty `scope` in a refresh answer says nothing granted was taken away: keep the stored scopes.
      ...(tokens.scopes?.length ? { scopes: tokens.scopes.join(' ') } : {}),
      updated_at: now.toISOString(),
    });
    if (tokens.accountMetadata)
      await mergeAccountMetadata(ctx, account.tenant_id, account.account_id, tokens.accountMetadata);
    return 'refreshed';
  } catch (error) {
    if (error instanceof PlatformError && error.kind === 'auth' && error.revoked) {
      const now = ctx.clock.now();
      await ctx.db.transaction((tx) => markAccountDisconnected(ctx, tx, account, 'unintentional', error.message, now));
      return 'disconnected';
    }
    throw error;
  }
}

/**
 * Calls the platform with an account's tokens, as publishing does: an `auth` answer gets one token
 * refresh (refreshAccountTokens: a revoked grant disconnects the account), unless the stored tokens
 * changed meanwhile, and one more call with the fresh row. The platform refused the first call, so
 * repeating it cannot act twice. When no refresh was made (not supported, grant revoked, account gone or
 * inactive) or the platform refused the refresh for good (`rejected`: a token too young to refresh),
 * the original `auth` error is thrown, since it says what to do; a refresh that failed for a while
 * throws its own error (transient kinds for the caller to retry).
 */
export async function withTokenRefresh<T>(
  ctx: AppContext,
  account: AccountRow,
  io: PlatformIO,
  call: (account: AccountRow) => Promise<T>,
): Promise<T> {
  try {
    return await call(account);
  } catch (error) {
    if (!(error instanceof PlatformError && error.kind === 'auth')) throw error;
    // NOTE: the refresh job (or another worker) may have refreshed the tokens since `account` was read.
    // Its new access token is tried as it is: refreshing again would spend a refresh token already
    // rotated away, which X and others treat as a stolen token and answer by revoking the grant.
    const current = await findAccountById(ctx.db.kysely, account.account_id);
    const rotated = !!current && current.access_token !== account.access_token;
    if (!rotated && (await refreshOrFirstError(ctx, current ?? account, io, error)) !== 'refreshed') throw error;
    const fresh = rotated ? current : await findAccountById(ctx.db.kysely, account.account_id);
    if (!fresh || fresh.is_active !== 1) throw error;
    return call(fresh);
  }
}

/** refreshAccountTokens, with a refresh the platform refused for good answered by the call's own `auth` error. */
async function refreshOrFirstError(
  ctx: AppContext,
  account: AccountRow,
  io: PlatformIO,
  first: PlatformError,
): Promise<RefreshOutcome> {
  try {
    return await refreshAccountTokens(ctx, account, { io });
  } catch (refreshError) {
    if (refreshError instanceof PlatformError && refreshError.kind === 'rejected') throw first;
    throw refreshError;
  }
}
