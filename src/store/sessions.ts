import type { Executor } from './db.js';
import type { SessionTable, UserPasswordTable } from './schema.js';

export type SessionRow = SessionTable;

export async function findPasswordHash(db: Executor, userId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('user_password')
    .select('password_hash')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.password_hash;
}

export async function upsertPassword(db: Executor, row: UserPasswordTable): Promise<void> {
  await db
    .insertInto('user_password')
    .values(row)
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({ password_hash: row.password_hash, updated_at: row.updated_at }),
    )
    .execute();
}

export async function insertSession(db: Executor, row: SessionRow): Promise<void> {
  await db.insertInto('session').values(row).execute();
}

/** The session of a cookie token hash with what its principal needs: the user and the tenant owner's plan. */
export async function findSessionByHash(db: Executor, tokenHash: string) {
  return db
    .selectFrom('session as s')
    .innerJoin('user as u', 'u.user_id', 's.user_id')
    .innerJoin('user as o', 'o.user_id', 's.tenant_id')
    .select([
      's.session_id',
      's.user_id',
      's.tenant_id',
      's.expires_at',
      'u.email',
      'u.role',
      'u.profile_access',
      'o.plan',
      'o.addons',
    ])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function deleteSession(db: Executor, sessionId: string): Promise<boolean> {
  const res = await db.deleteFrom('session').where('session_id', '=', sessionId).executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}

/** Ends every session of a user but `keep` (a password change signs the other browsers out). */
export async function deleteUserSessions(db: Executor, userId: string, keep: string | null): Promise<number> {
  let q = db.deleteFrom('session').where('user_id', '=', userId);
  if (keep) q = q.where('session_id', '!=', keep);
  const res = await q.executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** Removes sessions that expired before `now` (run on each sign-in: no job needed for a small table). */
export async function deleteExpiredSessions(db: Executor, now: string): Promise<void> {
  await db.deleteFrom('session').where('expires_at', '<=', now).execute();
}
