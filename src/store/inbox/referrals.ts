import type { Executor } from '../db.js';
import type { InboxReferralTable } from '../schema.js';

export type ReferralRow = InboxReferralTable;

/**
 * Keeps one click into a conversation; answers whether this call made the row. The unique
 * (account_id, referral_key) makes a second copy of the same push a no-op, and on PostgreSQL a concurrent
 * copy waits for the first insert's transaction and then inserts nothing.
 */
export async function insertReferral(db: Executor, row: ReferralRow): Promise<boolean> {
  const res = await db
    .insertInto('inbox_referral')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'referral_key']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) === 1;
}
