import type { Executor } from './db.js';
import type { AccountGroupTable } from './schema.js';

export type AccountGroupRow = AccountGroupTable;

/** A group with its members in the order they were given. */
export interface AccountGroupWithMembers extends AccountGroupRow {
  accountIds: string[];
}

export async function insertAccountGroup(db: Executor, row: AccountGroupRow): Promise<void> {
  await db.insertInto('account_group').values(row).execute();
}

export async function findAccountGroup(
  db: Executor,
  tenantId: string,
  groupId: string,
): Promise<AccountGroupRow | undefined> {
  return db
    .selectFrom('account_group')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('account_group_id', '=', groupId)
    .executeTakeFirst();
}

export async function findAccountGroupByName(
  db: Executor,
  tenantId: string,
  name: string,
): Promise<AccountGroupRow | undefined> {
  return db
    .selectFrom('account_group')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .executeTakeFirst();
}

/** A tenant's groups oldest first, each with its members (one query for the groups, one for members). */
export async function listAccountGroups(db: Executor, tenantId: string): Promise<AccountGroupWithMembers[]> {
  const groups = await db
    .selectFrom('account_group')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .orderBy('account_group_id')
    .execute();
  if (groups.length === 0) return [];
  const members = await db
    .selectFrom('account_group_member')
    .innerJoin('account_group', 'account_group.account_group_id', 'account_group_member.account_group_id')
    .select(['account_group_member.account_group_id as groupId', 'account_group_member.account_id as accountId'])
    .where('account_group.tenant_id', '=', tenantId)
    .orderBy('account_group_member.position')
    .execute();
  const byGroup = new Map(groups.map((g) => [g.account_group_id, [] as string[]]));
  for (const m of members) byGroup.get(m.groupId)?.push(m.accountId);
  return groups.map((g) => ({ ...g, accountIds: byGroup.get(g.account_group_id) ?? [] }));
}

export async function listAccountGroupMembers(db: Executor, groupId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('account_group_member')
    .select('account_id')
    .where('account_group_id', '=', groupId)
    .orderBy('position')
    .execute();
  return rows.map((r) => r.account_id);
}

/** Replaces a group's members with `accountIds`, in that order. */
export async function setAccountGroupMembers(
  db: Executor,
  groupId: string,
  accountIds: readonly string[],
): Promise<void> {
  await db.deleteFrom('account_group_member').where('account_group_id', '=', groupId).execute();
  if (accountIds.length === 0) return;
  await db
    .insertInto('account_group_member')
    .values(accountIds.map((accountId, position) => ({ account_group_id: groupId, account_id: accountId, position })))
    .execute();
}

export async function updateAccountGroup(
  db: Executor,
  tenantId: string,
  groupId: string,
  patch: Partial<Pick<AccountGroupRow, 'name' | 'updated_at'>>,
): Promise<void> {
  await db
    .updateTable('account_group')
    .set(patch)
    .where('tenant_id', '=', tenantId)
    .where('account_group_id', '=', groupId)
    .execute();
}

/** Deletes a group; its member rows go with it (cascade). True when a row was deleted. */
export async function deleteAccountGroup(db: Executor, tenantId: string, groupId: string): Promise<boolean> {
  const res = await db
    .deleteFrom('account_group')
    .where('tenant_id', '=', tenantId)
    .where('account_group_id', '=', groupId)
    .executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}

/** Which of `accountIds` are accounts of the tenant, with their profiles. */
export async function findTenantAccounts(
  db: Executor,
  tenantId: string,
  accountIds: readonly string[],
): Promise<{ account_id: string; profile_id: string }[]> {
  if (accountIds.length === 0) return [];
  return db
    .selectFrom('account')
    .select(['account_id', 'profile_id'])
    .where('tenant_id', '=', tenantId)
    .where('account_id', 'in', [...accountIds])
    .execute();
}
