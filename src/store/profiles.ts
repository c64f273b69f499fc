import { sqliteStatement, type Db, type Executor } from './db.js';
import { DirectoryCache } from './directory.js';
import type { ProfileTable } from './schema.js';

export type ProfileRow = ProfileTable;

export async function insertProfile(db: Executor, row: ProfileRow): Promise<void> {
  await db.insertInto('profile').values(row).execute();
}

/** A tenant's profiles, oldest first; `onlyIds` restricts to a scoped key's or member's profiles. */
export async function listProfiles(db: Executor, tenantId: string, onlyIds: string[] | null): Promise<ProfileRow[]> {
  if (onlyIds && onlyIds.length === 0) return [];
  let q = db.selectFrom('profile').selectAll().where('tenant_id', '=', tenantId);
  if (onlyIds) q = q.where('profile_id', 'in', onlyIds);
  return q.orderBy('created_at').orderBy('profile_id').execute();
}

const tenantProfiles = new DirectoryCache<readonly ProfileRow[]>();

/**
 * The same list on the request hot path (GET /v1/profiles): on SQLite from the directory cache
 * (store/directory.ts), exact across processes; `seenVersion` is the directory version the request's
 * key was checked under. The rows are shared: callers must not change them.
 */
export async function listTenantProfiles(
  db: Db,
  tenantId: string,
  seenVersion?: number,
): Promise<readonly ProfileRow[]> {
  const sqlite = db.sqlite;
  if (sqlite) {
    return tenantProfiles.get(
      sqlite,
      tenantId,
      () =>
        sqliteStatement(sqlite, 'SELECT * FROM profile WHERE tenant_id = ? ORDER BY created_at, profile_id').all(
          tenantId,
        ) as ProfileRow[],
      undefined,
      seenVersion,
    );
  }
  return listProfiles(db.kysely, tenantId, null);
}

export async function findProfile(db: Executor, tenantId: string, profileId: string): Promise<ProfileRow | undefined> {
  return db
    .selectFrom('profile')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('profile_id', '=', profileId)
    .executeTakeFirst();
}

export async function countProfiles(db: Executor, tenantId: string): Promise<number> {
  const row = await db
    .selectFrom('profile')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateProfile(
  db: Executor,
  tenantId: string,
  profileId: string,
  patch: Partial<Pick<ProfileRow, 'name' | 'description' | 'color' | 'is_default' | 'updated_at'>>,
): Promise<void> {
  await db
    .updateTable('profile')
    .set(patch)
    .where('tenant_id', '=', tenantId)
    .where('profile_id', '=', profileId)
    .execute();
}

export async function clearDefaultProfile(db: Executor, tenantId: string, now: string): Promise<void> {
  await db
    .updateTable('profile')
    .set({ is_default: 0, updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('is_default', '=', 1)
    .execute();
}

export async function deleteProfile(db: Executor, tenantId: string, profileId: string): Promise<void> {
  await db.deleteFrom('profile').where('tenant_id', '=', tenantId).where('profile_id', '=', profileId).execute();
}
