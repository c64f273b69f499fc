import { sqliteStatement, type Db, type Executor } from './db.js';
import { DirectoryCache } from './directory.js';
import { hot } from './hot.js';
import type { ApiKeyTable } from './schema.js';

export type ApiKeyRow = ApiKeyTable;

/** What authentication needs about a key, its user and the user's tenant, in one lookup. */
export interface KeyPrincipal {
  api_key_id: string;
  user_id: string;
  tenant_id: string;
  scope: 'full' | 'profiles';
  profile_ids: string;
  permission: 'read-write' | 'read';
  expires_at: string | null;
  profile_access: string | null;
  plan: string;
  addons: string;
  /** SQLite: the directory version this row was read under (store/directory.ts). */
  directory_version?: number;
}

export async function insertApiKey(db: Executor, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_key').values(row).execute();
}

export async function listUserApiKeys(db: Executor, userId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_key')
    .selectAll()
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('api_key_id')
    .execute();
}

/** Keys that count against the quota: not deleted and not expired at `now`. */
export async function countActiveApiKeys(db: Executor, userId: string, now: string): Promise<number> {
  const row = await db
    .selectFrom('api_key')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One key of the user, deleted or not (a revocation is idempotent while the key is on record). */
export async function findUserApiKey(db: Executor, userId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom('api_key')
    .selectAll()
    .where('user_id', '=', userId)
    .where('api_key_id', '=', keyId)
    .executeTakeFirst();
}

export async function softDeleteApiKey(db: Executor, userId: string, keyId: string, now: string): Promise<boolean> {
  const res = await db
    .updateTable('api_key')
    .set({ deleted_at: now })
    .where('user_id', '=', userId)
    .where('api_key_id', '=', keyId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

const principalSql = `
  SELECT k.api_key_id, k.user_id, k.tenant_id, k.scope, k.profile_ids, k.permission, k.expires_at,
         u.profile_access, o.plan, o.addons
    FROM api_key k
    JOIN "user" u ON u.user_id = k.user_id
    JOIN "user" o ON o.user_id = k.tenant_id
   WHERE k.key_hash = ? AND k.deleted_at IS NULL`;

/** Principals by key hash, exact across processes (store/directory.ts); only keys that exist are kept. */
const principals = new DirectoryCache<KeyPrincipal | undefined>();

/**
 * The authentication lookup: the key (not deleted), its user and the user's tenant. Answers at once
 * when it can (SQLite), else with a promise: it runs on every request.
 */
export function findPrincipalByHash(
  db: Db,
  keyHash: string,
): KeyPrincipal | undefined | Promise<KeyPrincipal | undefined> {
  const sqlite = db.sqlite;
  if (sqlite) {
    const load = (version: number) => {
      const row = sqliteStatement(sqlite, principalSql).get(keyHash) as KeyPrincipal | undefined;
      if (row) row.directory_version = version;
      return row;
    };
    return principals.get(sqlite, keyHash, load, Boolean);
  }
  return hot<KeyPrincipal>(db.kysely, principalSql, [keyHash]).then((r) => r.rows[0]);
}
