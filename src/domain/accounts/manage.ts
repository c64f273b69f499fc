import { descriptorOf } from '../../platforms/catalogue.js';
import type { AppContext } from '../../context.js';
import { invalid, notFound } from '../../errors.js';
import {
  deleteAccount as deleteAccountRow,
  findAccount,
  findAccountByIdentity,
  listAccounts as listAccountRows,
  updateAccount as updateAccountRow,
  type AccountRow,
} from '../../store/accounts.js';
import { listProfiles } from '../profiles.js';
import { canSeeProfile, type Principal } from '../principal.js';
import { presentListedAccount } from '../present/accounts.js';
import { writeConnectionLog } from '../connect/connection-log.js';
import { markAccountDisconnected } from './disconnect.js';

/** An account of the caller's tenant inside the caller's profile scope; anything else is a 404. */
export async function getVisibleAccount(ctx: AppContext, caller: Principal, accountId: string): Promise<AccountRow> {
  const row = await findAccount(ctx.db.kysely, caller.tenantId, accountId);
  if (!row || !canSeeProfile(caller, row.profile_id)) throw notFound('Account', 'account_not_found');
  return row;
}

const hasAnalyticsAccess = (caller: Principal) => caller.addons.includes('analytics');

/**
 * GET /v1/accounts: the caller's accounts with `profileId` populated `{_id, name, slug}`. Accounts of
 * profiles beyond the plan's profile limit only with `includeOverLimit`.
 */
export async function listAccounts(
  ctx: AppContext,
  caller: Principal,
  query: { profileId?: string; platform?: string; includeOverLimit?: boolean },
) {
  const profiles = await listProfiles(ctx.db, caller, query.includeOverLimit === true);
  const byId = new Map(profiles.map((p) => [p.row.profile_id, p.row]));
  let ids = [...byId.keys()];
  if (query.profileId) ids = ids.filter((id) => id === query.profileId);
  const rows = await listAccountRows(ctx.db.kysely, {
    tenantId: caller.tenantId,
    profileIds: ids,
    platform: query.platform,
  });
  const analytics = hasAnalyticsAccess(caller);
  return {
    // Every row's profile is in byId: rows were selected by those profile ids.
    accounts: rows.map((row) => presentListedAccount(row, byId.get(row.profile_id)!, analytics)),
    hasAnalyticsAccess: analytics,
  };
}

/** PUT /v1/accounts/{id}: the display fields a user may override. */
export async function updateAccount(
  ctx: AppContext,
  caller: Principal,
  accountId: string,
  input: { username?: string; displayName?: string },
) {
  const row = await getVisibleAccount(ctx, caller, accountId);
  const patch: Partial<AccountRow> = { updated_at: ctx.clock.now().toISOString() };
  if (input.username !== undefined) {
    const username = input.username.trim();
    if (!username)
      throw invalid('validation_error', 'username must not be empty', { fields: { username: ['must not be empty'] } });
    patch.username = username;
  }
  if (input.displayName !== undefined) patch.display_name = input.displayName.trim() || null;
  await updateAccountRow(ctx.db.kysely, caller.tenantId, accountId, patch);
  const updated = { ...row, ...patch };
  return { username: updated.username, displayName: updated.display_name ?? updated.username };
}

/**
 * DELETE /v1/accounts/{id}: emits `account.disconnected` (`intentional`) unless the account was already
 * disconnected, then removes it, so its profile can be deleted afterwards.
 */
export async function deleteAccount(ctx: AppContext, caller: Principal, accountId: string): Promise<void> {
  const row = await getVisibleAccount(ctx, caller, accountId);
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await markAccountDisconnected(ctx, tx, row, 'intentional', 'Disconnected by the user', now);
    await deleteAccountRow(tx, caller.tenantId, accountId);
    await writeConnectionLog(ctx, tx, {
      tenantId: caller.tenantId,
      userId: caller.userId,
      profileId: row.profile_id,
      accountId,
      platform: row.platform,
      eventType: 'disconnect',
      method: 'oauth',
      context: { disconnectionType: 'intentional' },
    });
  });
}

/** Merges platform-reported changes (e.g. Telegram's migrated chat id) into an account's metadata. */
export async function mergeAccountMetadata(
  ctx: AppContext,
  tenantId: string,
  accountId: string,
  patch: Record<string, unknown>,
): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const row = await findAccount(tx, tenantId, accountId);
    if (!row) return;
    const metadata = JSON.stringify({ ...JSON.parse(row.metadata), ...patch });
    // Where a chat id is account metadata (Telegram), the chat's id is its identity; keep the old one if
    // the new chat is already its own account.
    const chatIsIdentity = descriptorOf(row.platform)?.accountMetadata.includes('chatId') ?? false;
    const newId = typeof patch.chatId === 'string' && chatIsIdentity ? patch.chatId : null;
    const taken = newId ? await findAccountByIdentity(tx, tenantId, row.profile_id, row.platform, newId) : undefined;
    const extra = newId && !taken ? { platform_user_id: newId } : {};
    await updateAccountRow(tx, tenantId, accountId, { metadata, ...extra, updated_at: ctx.clock.now().toISOString() });
  });
}
