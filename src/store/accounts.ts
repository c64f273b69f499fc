import type { Executor } from './db.js';
import type { AccountTable } from './schema.js';

export type AccountRow = AccountTable;

export async function insertAccount(db: Executor, row: AccountRow): Promise<void> {
  await db.insertInto('account').values(row).execute();
}

export async function findAccount(db: Executor, tenantId: string, accountId: string): Promise<AccountRow | undefined> {
  return db
    .selectFrom('account')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** Accounts still connected to a profile (a profile with any cannot be deleted). */
export async function countProfileAccounts(db: Executor, tenantId: string, profileId: string): Promise<number> {
  const row = await db
    .selectFrom('account')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('profile_id', '=', profileId)
    .where('disconnected_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface AccountFilter {
  tenantId: string;
  /** null = every profile of the tenant. */
  profileIds: string[] | null;
  platform?: string;
}

/** A tenant's accounts (active and disconnected), oldest first. */
export async function listAccounts(db: Executor, f: AccountFilter): Promise<AccountRow[]> {
  let q = db.selectFrom('account').selectAll().where('tenant_id', '=', f.tenantId);
  if (f.profileIds) {
    if (f.profileIds.length === 0) return [];
    q = q.where('profile_id', 'in', f.profileIds);
  }
  if (f.platform) q = q.where('platform', '=', f.platform);
  return q.orderBy('created_at').orderBy('account_id').execute();
}

export async function updateAccount(
  db: Executor,
  tenantId: string,
  accountId: string,
  patch: Partial<Omit<AccountRow, 'account_id' | 'tenant_id'>>,
): Promise<void> {
  await db
    .updateTable('account')
    .set(patch)
    .where('tenant_id', '=', tenantId)
    .where('account_id', '=', accountId)
    .execute();
}

export async function deleteAccount(db: Executor, tenantId: string, accountId: string): Promise<boolean> {
  const res = await db
    .deleteFrom('account')
    .where('tenant_id', '=', tenantId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}

/**
 * Rows a disconnected account leaves behind must not block deleting its profile (the profile delete
 * only counts connected accounts).
 */
export async function deleteDisconnectedProfileAccounts(
  db: Executor,
  tenantId: string,
  profileId: string,
): Promise<void> {
  await db
    .deleteFrom('account')
    .where('tenant_id', '=', tenantId)
    .where('profile_id', '=', profileId)
    .where('disconnected_at', 'is not', null)
    .execute();
}

/** Active accounts with a refresh token whose access token expires before `before` (all tenants). */
export async function listAccountsDueForRefresh(db: Executor, before: Date, limit: number): Promise<AccountRow[]> {
  return db
    .selectFrom('account')
    .selectAll()
    .where('is_active', '=', 1)
    .where('refresh_token', 'is not', null)
    .where('token_expires_at', 'is not', null)
    .where('token_expires_at', '<', before.toISOString())
    .orderBy('token_expires_at')
    .limit(limit)
    .execute();
}

/** An account by id alone (job payloads carry the id; the tenant comes from the row). */
export async function findAccountById(db: Executor, accountId: string): Promise<AccountRow | undefined> {
  return db.selectFrom('account').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

/** The account of one platform user on one profile (reconnects update it). */
export async function findAccountByIdentity(
  db: Executor,
  tenantId: string,
  profileId: string,
  platform: string,
  platformUserId: string,
): Promise<AccountRow | undefined> {
  return db
    .selectFrom('account')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('profile_id', '=', profileId)
    .where('platform', '=', platform)
    .where('platform_user_id', '=', platformUserId)
    .executeTakeFirst();
}

/** Marks an active account disconnected; false when it already was (so the caller emits once). */
export async function markAccountInactive(db: Executor, accountId: string, now: Date): Promise<boolean> {
  const iso = now.toISOString();
  const res = await db
    .updateTable('account')
    .set({ is_active: 0, disconnected_at: iso, updated_at: iso })
    .where('account_id', '=', accountId)
    .where('is_active', '=', 1)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
