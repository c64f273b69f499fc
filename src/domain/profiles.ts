import { AppError, invalid, notFound } from '../errors.js';
import { newId } from '../lib/ids.js';
import type { Db } from '../store/db.js';
import { countProfileAccounts, deleteDisconnectedProfileAccounts } from '../store/accounts.js';
import {
  clearDefaultProfile,
  countProfiles,
  deleteProfile as deleteProfileRow,
  findProfile,
  insertProfile,
  listProfiles as listProfileRows,
  listTenantProfiles,
  updateProfile as updateProfileRow,
  type ProfileRow,
} from '../store/profiles.js';
import { planOf } from './plans.js';
import { assertProfileVisible, type Principal } from './principal.js';

const DEFAULT_PROFILE_COLOR = '#ffeda0';

export interface ProfileInput {
  name?: string;
  description?: string | null;
  color?: string;
  isDefault?: boolean;
}

export async function createProfile(db: Db, caller: Principal, input: ProfileInput, now: Date): Promise<ProfileRow> {
  if (caller.profileIds !== null) {
    throw new AppError('forbidden', 'scope_forbids_profile_creation', 'A profile-scoped caller cannot create profiles');
  }
  const name = input.name?.trim();
  if (!name) throw invalid('validation_error', 'name is required', { fields: { name: ['must not be empty'] } });
  const limit = planOf(caller.plan).profiles;
  return db.transaction(async (tx) => {
    const count = await countProfiles(tx, caller.tenantId);
    if (limit !== null && count >= limit) {
      throw new AppError('limit', 'profile_limit_reached', `Your plan allows ${limit} profiles`, {
        limit,
        current: count,
      });
    }
    const iso = now.toISOString();
    const row: ProfileRow = {
      profile_id: newId(now),
      tenant_id: caller.tenantId,
      name,
      description: input.description ?? null,
      color: input.color ?? DEFAULT_PROFILE_COLOR,
      is_default: count === 0 ? 1 : 0,
      created_at: iso,
      updated_at: iso,
    };
    await insertProfile(tx, row);
    return row;
  });
}

/** The caller's profiles oldest first; those beyond the plan's limit only when asked for. */
export async function listProfiles(db: Db, caller: Principal, includeOverLimit: boolean) {
  const all = await listTenantProfiles(db, caller.tenantId, caller.directoryVersion);
  const limit = planOf(caller.plan).profiles;
  const withFlag = all.map((row, index) => ({ row, isOverLimit: limit !== null && index >= limit }));
  return withFlag.filter(
    (p) =>
      (includeOverLimit || !p.isOverLimit) &&
      (caller.profileIds === null || caller.profileIds.includes(p.row.profile_id)),
  );
}

export async function getProfile(db: Db, caller: Principal, profileId: string): Promise<ProfileRow> {
  assertProfileVisible(caller, profileId);
  const row = await findProfile(db.kysely, caller.tenantId, profileId);
  if (!row) throw notFound('Profile', 'profile_not_found');
  return row;
}

export async function updateProfile(db: Db, caller: Principal, profileId: string, input: ProfileInput, now: Date) {
  assertProfileVisible(caller, profileId);
  return db.transaction(async (tx) => {
    const row = await findProfile(tx, caller.tenantId, profileId);
    if (!row) throw notFound('Profile', 'profile_not_found');
    const iso = now.toISOString();
    const patch: Partial<ProfileRow> = { updated_at: iso };
    if (input.name !== undefined) {
      const name = input.name.trim();
      if (!name)
        throw invalid('validation_error', 'name must not be empty', { fields: { name: ['must not be empty'] } });
      patch.name = name;
    }
    if (input.description !== undefined) patch.description = input.description;
    if (input.color !== undefined) patch.color = input.color;
    if (input.isDefault === true && !row.is_default) {
      await clearDefaultProfile(tx, caller.tenantId, iso);
      patch.is_default = 1;
    }
    await updateProfileRow(tx, caller.tenantId, profileId, patch);
    return { ...row, ...patch } as ProfileRow;
  });
}

export async function deleteProfile(db: Db, caller: Principal, profileId: string, now: Date): Promise<void> {
  assertProfileVisible(caller, profileId);
  await db.transaction(async (tx) => {
    const row = await findProfile(tx, caller.tenantId, profileId);
    if (!row) throw notFound('Profile', 'profile_not_found');
    const accounts = await countProfileAccounts(tx, caller.tenantId, profileId);
    if (accounts > 0) {
      throw invalid('profile_has_accounts', 'Disconnect the accounts of this profile before deleting it', { accounts });
    }
    await deleteDisconnectedProfileAccounts(tx, caller.tenantId, profileId);
    await deleteProfileRow(tx, caller.tenantId, profileId);
    if (row.is_default) {
      // Keep exactly one default: the oldest remaining profile takes over.
      const [next] = await listProfileRows(tx, caller.tenantId, null);
      if (next)
        await updateProfileRow(tx, caller.tenantId, next.profile_id, { is_default: 1, updated_at: now.toISOString() });
    }
  });
}
