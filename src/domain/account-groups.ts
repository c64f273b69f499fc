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
 * caller (scoped key or team member) sees and names only the accounts of its profiles: a group's other
 * members are hidden from it and kept when it changes the group's accounts.
 */

export interface AccountGroupView {
  groupId: string;
  name: string;
  accountIds: string[];
}

export async function listAccountGroups(db: Db, caller: Principal): Promise<AccountGroupView[]> {
  const groups = await listGroupRows(db.kysely, caller.tenantId);
  const visible = await visibleAccountIds(db.kysely, caller, groups.flatMap((g) => g.accountIds));
  return groups.map((g) => ({ groupId: g.account_group_id, name: g.name, accountIds: g.accountIds.filter((id) => visible.has(id)) }));
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
      const row = await findAccountGroup(tx, caller.tenantId, groupId);
      if (!row) throw notFound('Account group', 'account_group_not_found');
      if (name !== undefined && name !== row.name) {
        const other = await findAccountGroupByName(tx, caller.tenantId, name);
        if (other && other.account_group_id !== groupId) throw nameTaken(name);
      }
      const current = await listAccountGroupMembers(tx, groupId);
      const visible = await visibleAccountIds(tx, caller, current);
      let members = current;
      if (given !== undefined) {
        await assertAccountsKnown(tx, caller, given);
        // Members the caller cannot see stay where they are: it cannot name them, so it cannot mean to drop them.
        members = [...current.filter((id) => !visible.has(id)), ...given];
        await setAccountGroupMembers(tx, groupId, members);
      }
      await updateGroupRow(tx, caller.tenantId, groupId, { ...(name !== undefined ? { name } : {}), updated_at: now.toISOString() });
      const shown = given ?? current.filter((id) => visible.has(id));
      return { groupId, name: name ?? row.name, accountIds: shown };
    }),
  );
}

export async function deleteAccountGroup(db: Db, caller: Principal, groupId: string): Promise<void> {
  if (!(await deleteGroupRow(db.kysely, caller.tenantId, groupId))) throw notFound('Account group', 'account_group_not_found');
}

function checkName(raw: string): string {
  const name = raw.trim();
  if (!name) throw invalidFields('name must not be empty', { name: ['must not be empty'] });
  return name;
}

const dedupe = (ids: string[]) => [...new Set(ids)];

const nameTaken = (name: string) => conflict('account_group_name_taken', `An account group named "${name}" already exists`, { name });

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
    throw invalidFields(`Unknown account ids: ${unknown.join(', ')}`, { accountIds: unknown.map((id) => `${id}: account not found`) }, 'account_not_found');
  }
}

async function visibleAccountIds(db: Executor, caller: Principal, accountIds: string[]): Promise<Set<string>> {
  const rows = await findTenantAccounts(db, caller.tenantId, dedupe(accountIds));
  return new Set(rows.filter((r) => canSeeProfile(caller, r.profile_id)).map((r) => r.account_id));
}
