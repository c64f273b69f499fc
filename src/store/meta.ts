import type { Executor } from './db.js';
import { isUniqueViolation } from './db.js';

/** Inserts a key once; returns false when it already existed (another process got there first). */
export async function claimMetaKey(db: Executor, key: string, value: string, now: Date): Promise<boolean> {
  try {
    await db.insertInto('meta').values({ key, value, created_at: now.toISOString() }).execute();
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

export async function readMeta(db: Executor, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

/** Replaces a key's value (inserting it when absent). */
export async function writeMeta(db: Executor, key: string, value: string, now: Date): Promise<void> {
  if (await claimMetaKey(db, key, value, now)) return;
  await db.updateTable('meta').set({ value }).where('key', '=', key).execute();
}
