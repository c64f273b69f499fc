import { conflict, invalidFields, notFound } from '../errors.js';
import { newId } from '../lib/ids.js';
import {
  deleteAccountGroup as deleteGroupRow,
  findAccountGroup,
  findAccountGroupByName,
  findTenantAccounts,
  insertAccountGroup,
  listAccountGroupMembers,
  listAccountGroups as listGroupRows,
  setAccountGroupMembers,
  updateAccountGroup as updateGroupRow,
} from '../store/account-groups.js';
import { isUniqueViolation, type Db, type Executor } from '../store/db.js';
import { canSeeProfile, type Principal } from './principal.js';

/*
 * Account groups: named sets of the tenant's accounts, across profiles (the hosted API dropped the
 * per-profile groups; a `profileId` on creation is accepted and ignored, as there). A profile-scoped
 * caller (scoped key or team member) sees only the groups whose accounts are all in its profiles, the
 * rule that decides which posts it sees: any other group is absent from its list and a 404 to change
 * or delete, exactly like a group that does not exist (it could otherwise rename or delete a group of
 * accounts it cannot see, or learn their group's name).
 */

export interface AccountGroupView {
  groupId: string;
  name: string;
  accountIds: string[];
}

export async function listAccountGroups(db: Db, caller: Principal): Promise<AccountGroupView[]> {
  const groups = await listGroupRows(db.kysely, caller.tenantId);
  const visible = await visibleAccountIds(
    db.kysely,
    caller,
    groups.flatMap((g) => g.accountIds),
  );
  return groups
    .filter((g) => g.accountIds.every((id) => visible.has(id)))
    .map((g) => ({ groupId: g.account_group_id, name: g.name, accountIds: g.accountIds }));
}

export async function createAccountGroup(
  db: Db,
  caller: Principal,
  input: { name: string; accountIds: string[] },
  now: Date,
): Promise<AccountGroupView> {
  const name = checkName(input.name);
  const accountIds = dedupe(input.accountIds);
  return withNameConflict(name, () =>
    db.transaction(async (tx) => {
      await assertAccountsKnown(tx, caller, accountIds);
      if (await findAccountGroupByName(tx, caller.tenantId, name)) throw nameTaken(name);
      const iso = now.toISOString();
      const groupId = newId(now);
      await insertAccountGroup(tx, {
        account_group_id: groupId,
        tenant_id: caller.tenantId,
        name,
        created_by: caller.userId,
        created_at: iso,
        updated_at: iso,
      });
      await setAccountGroupMembers(tx, groupId, accountIds);
      return { groupId, name, accountIds };
    }),
  );
}

export async function updateAccountGroup(
  db: Db,
  caller: Principal,
  groupId: string,
  input: { name?: string; accountIds?: string[] },
  now: Date,
): Promise<AccountGroupView> {
  const name = input.name === undefined ? undefined : checkName(input.name);
  const given = input.accountIds === undefined ? undefined : dedupe(input.accountIds);
  return withNameConflict(name ?? '', () =>
    db.transaction(async (tx) => {
      const { row, members: current } = await findVisibleGroup(tx, caller, groupId);
      if (name !== undefined && name !== row.name) {
        const other = await findAccountGroupByName(tx, caller.tenantId, name);
        if (other && other.account_group_id !== groupId) throw nameTaken(name);
      }
      if (given !== undefined) {
        await assertAccountsKnown(tx, caller, given);
        await setAccountGroupMembers(tx, groupId, given);
      }
      await updateGroupRow(tx, caller.tenantId, groupId, {
        ...(name !== undefined ? { name } : {}),
        updated_at: now.toISOString(),
      });
      return { groupId, name: name ?? row.name, accountIds: given ?? current };
    }),
  );
}

export async function deleteAccountGroup(db: Db, caller: Principal, groupId: string): Promise<void> {
  await db.transaction(async (tx) => {
    await findVisibleGroup(tx, caller, groupId);
    if (!(await deleteGroupRow(tx, caller.tenantId, groupId)))
      throw notFound('Account group', 'account_group_not_found');
  });
}

/** The group and its members when the caller sees all of them; else a 404, as for a group that does not exist. */
async function findVisibleGroup(tx: Executor, caller: Principal, groupId: string) {
  const row = await findAccountGroup(tx, caller.tenantId, groupId);
  if (!row) throw notFound('Account group', 'account_group_not_found');
  const members = await listAccountGroupMembers(tx, groupId);
  if (caller.profileIds !== null) {
    const visible = await visibleAccountIds(tx, caller, members);
    if (!members.every((id) => visible.has(id))) throw notFound('Account group', 'account_group_not_found');
  }
  return { row, members };
}

function checkName(raw: string): string {
  const name = raw.trim();
  if (!name) throw invalidFields('name must not be empty', { name: ['must not be empty'] });
  return name;
}

const dedupe = (ids: string[]) => [...new Set(ids)];

const nameTaken = (name: string) =>
  conflict('account_group_name_taken', `An account group named "${name}" already exists`, { name });

/** Two requests creating the same name at once: the unique index refuses the second, reported as the 409 it is. */
async function withNameConflict<T>(name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(name);
    throw error;
  }
}

/**
 * Every id must be an account the caller may see. An account of another tenant, or of a profile outside
 * the caller's scope, is reported exactly like one that does not exist.
 */
async function assertAccountsKnown(db: Executor, caller: Principal, accountIds: string[]): Promise<void> {
  const visible = await visibleAccountIds(db, caller, accountIds);
  const unknown = accountIds.filter((id) => !visible.has(id));
  if (unknown.length > 0) {
    throw invalidFields(
      `Unknown account ids: ${unknown.join(', ')}`,
      { accountIds: unknown.map((id) => `${id}: account not found`) },
      'account_not_found',
    );
  }
}

async function visibleAccountIds(db: Executor, caller: Principal, accountIds: string[]): Promise<Set<string>> {
  const rows = await findTenantAccounts(db, caller.tenantId, dedupe(accountIds));
  return new Set(rows.filter((r) => canSeeProfile(caller, r.profile_id)).map((r) => r.account_id));
}
