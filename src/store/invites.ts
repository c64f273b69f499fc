import type { Executor } from './db.js';
import type { InviteTable } from './schema.js';

export type InviteRow = InviteTable;

export async function insertInvite(db: Executor, row: InviteRow): Promise<void> {
  await db.insertInto('invite').values(row).execute();
}

export async function findInviteByHash(db: Executor, tokenHash: string): Promise<InviteRow | undefined> {
  return db.selectFrom('invite').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/**
 * Marks an invite used by `userId`. The `used_at IS NULL` guard makes acceptance single-use even when
 * two requests race: only one update changes a row.
 */
export async function markInviteUsed(db: Executor, inviteId: string, userId: string, now: string): Promise<boolean> {
  const res = await db
    .updateTable('invite')
    .set({ used_at: now, used_by: userId })
    .where('invite_id', '=', inviteId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
