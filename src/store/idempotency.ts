import { isUniqueViolation, type Executor } from './db.js';
import type { IdempotencyKeyTable } from './schema.js';

export type IdempotencyRow = IdempotencyKeyTable;

/** Inserts an in-flight row for the key; false when the tenant already has one. */
export async function insertIdempotencyKey(db: Executor, row: IdempotencyRow): Promise<boolean> {
  try {
    await db.insertInto('idempotency_key').values(row).execute();
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

export async function findIdempotencyKey(
  db: Executor,
  tenantId: string,
  key: string,
): Promise<IdempotencyRow | undefined> {
  return db
    .selectFrom('idempotency_key')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('idem_key', '=', key)
    .executeTakeFirst();
}

/** Takes over an in-flight row whose holder is gone (its lease `expectedLockedUntil` passed); false if someone else did. */
export async function takeOverIdempotencyKey(
  db: Executor,
  tenantId: string,
  key: string,
  expectedLockedUntil: string | null,
  lockedUntil: string,
): Promise<boolean> {
  let q = db
    .updateTable('idempotency_key')
    .set({ locked_until: lockedUntil })
    .where('tenant_id', '=', tenantId)
    .where('idem_key', '=', key)
    .where('state', '=', 'in_flight');
  q =
    expectedLockedUntil === null
      ? q.where('locked_until', 'is', null)
      : q.where('locked_until', '=', expectedLockedUntil);
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function completeIdempotencyKey(
  db: Executor,
  tenantId: string,
  key: string,
  statusCode: number,
  body: string,
): Promise<void> {
  await db
    .updateTable('idempotency_key')
    .set({ state: 'done', status_code: statusCode, response_body: body, locked_until: null })
    .where('tenant_id', '=', tenantId)
    .where('idem_key', '=', key)
    .execute();
}

export async function deleteIdempotencyKey(db: Executor, tenantId: string, key: string): Promise<void> {
  await db.deleteFrom('idempotency_key').where('tenant_id', '=', tenantId).where('idem_key', '=', key).execute();
}

/** Removes keys past their retention (24 hours). */
export async function pruneIdempotencyKeys(db: Executor, nowIso: string): Promise<number> {
  const res = await db.deleteFrom('idempotency_key').where('expires_at', '<=', nowIso).executeTakeFirst();
  return Number(res.numDeletedRows);
}
