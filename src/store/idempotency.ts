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

/**
 * In the transaction of the change the key guards, while `lease` (the holder's `locked_until`) is still
 * the key's: marks it `committed` (the change is in, the answer not yet), or `done` with `answer`. False
 * when another request took the key over: the caller must roll its change back.
 */
export async function commitIdempotencyKey(
  tx: Executor,
  tenantId: string,
  key: string,
  lease: string,
  answer: { statusCode: number; body: string } | null,
): Promise<boolean> {
  const res = await tx
    .updateTable('idempotency_key')
    .set(
      answer
        ? { state: 'done', status_code: answer.statusCode, response_body: answer.body, locked_until: null }
        : { state: 'committed' },
    )
    .where('tenant_id', '=', tenantId)
    .where('idem_key', '=', key)
    .where('state', 'in', ['in_flight', 'committed'])
    .where('locked_until', '=', lease)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Stores the answer of the request that holds the key with `lease`; false if the key is no longer its. */
export async function completeIdempotencyKey(
  db: Executor,
  tenantId: string,
  key: string,
  lease: string,
  statusCode: number,
  body: string,
): Promise<boolean> {
  const res = await db
    .updateTable('idempotency_key')
    .set({ state: 'done', status_code: statusCode, response_body: body, locked_until: null })
    .where('tenant_id', '=', tenantId)
    .where('idem_key', '=', key)
    .where('state', 'in', ['in_flight', 'committed'])
    .where('locked_until', '=', lease)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Lets the key go when its request committed nothing, if it still holds it with `lease`. */
export async function releaseIdempotencyKey(db: Executor, tenantId: string, key: string, lease: string): Promise<void> {
  await db
    .deleteFrom('idempotency_key')
    .where('tenant_id', '=', tenantId)
    .where('idem_key', '=', key)
    .where('state', '=', 'in_flight')
    .where('locked_until', '=', lease)
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
