import type { Executor } from './db.js';
import type { QueueTable } from './schema.js';

export type QueueRow = QueueTable;

export async function insertQueue(db: Executor, row: QueueRow): Promise<void> {
  await db.insertInto('queue').values(row).execute();
}

/** A profile's queues, default first, then oldest first. */
export async function listProfileQueues(db: Executor, tenantId: string, profileId: string): Promise<QueueRow[]> {
  return db
    .selectFrom('queue')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('profile_id', '=', profileId)
    .orderBy('is_default', 'desc')
    .orderBy('created_at')
    .orderBy('queue_id')
    .execute();
}

export async function findQueue(
  db: Executor,
  tenantId: string,
  profileId: string,
  queueId: string,
): Promise<QueueRow | undefined> {
  return db
    .selectFrom('queue')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('profile_id', '=', profileId)
    .where('queue_id', '=', queueId)
    .executeTakeFirst();
}

export async function updateQueue(
  db: Executor,
  queueId: string,
  patch: Partial<Pick<QueueRow, 'name' | 'timezone' | 'slots' | 'active' | 'is_default' | 'updated_at'>>,
): Promise<void> {
  await db.updateTable('queue').set(patch).where('queue_id', '=', queueId).execute();
}

export async function clearDefaultQueue(db: Executor, tenantId: string, profileId: string, now: string): Promise<void> {
  await db
    .updateTable('queue')
    .set({ is_default: 0, updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('profile_id', '=', profileId)
    .where('is_default', '=', 1)
    .execute();
}

export async function deleteQueue(db: Executor, queueId: string): Promise<void> {
  // Same lock order as an assignment (queue row, then claims): no deadlock with a post being queued.
  await lockQueue(db, queueId);
  await db.deleteFrom('queue_slot_claim').where('queue_id', '=', queueId).execute();
  await db.deleteFrom('queue').where('queue_id', '=', queueId).execute();
}

/**
 * Takes the queue row's write lock until the transaction ends (a no-op update: portable, and on
 * PostgreSQL a row lock), so assignments to one queue line up instead of colliding slot after slot.
 * Exclusivity itself comes from the claim's key, not from this lock.
 */
export async function lockQueue(db: Executor, queueId: string): Promise<void> {
  await db
    .updateTable('queue')
    .set((eb) => ({ active: eb.ref('active') }))
    .where('queue_id', '=', queueId)
    .execute();
}

/** Instants (ISO UTC) after `fromIso` held by a scheduled post of this queue. */
export async function takenSlots(db: Executor, queueId: string, fromIso: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('post')
    .select('scheduled_for')
    .where('queue_id', '=', queueId)
    .where('status', '=', 'scheduled')
    .where('scheduled_for', '>', fromIso)
    .execute();
  return new Set(rows.map((r) => r.scheduled_for!));
}

/** True when a scheduled post of the queue sits at this instant (the claim on it is live). */
export async function isSlotHeld(db: Executor, queueId: string, slotIso: string): Promise<boolean> {
  const row = await db
    .selectFrom('post')
    .select('post_id')
    .where('queue_id', '=', queueId)
    .where('status', '=', 'scheduled')
    .where('scheduled_for', '=', slotIso)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Inserts the claim on a slot unless one exists. `ON CONFLICT DO NOTHING` (both dialects) reports a
 * lost race without an error, so the caller's transaction stays usable on PostgreSQL.
 */
export async function insertSlotClaim(
  db: Executor,
  claim: { queue_id: string; slot_at: string; claim_id: string; tenant_id: string; created_at: string },
): Promise<boolean> {
  const res = await db
    .insertInto('queue_slot_claim')
    .values(claim)
    .onConflict((oc) => oc.columns(['queue_id', 'slot_at']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export async function findSlotClaim(db: Executor, queueId: string, slotIso: string) {
  return db
    .selectFrom('queue_slot_claim')
    .selectAll()
    .where('queue_id', '=', queueId)
    .where('slot_at', '=', slotIso)
    .executeTakeFirst();
}

export async function deleteSlotClaim(db: Executor, queueId: string, slotIso: string, claimId: string): Promise<void> {
  await db
    .deleteFrom('queue_slot_claim')
    .where('queue_id', '=', queueId)
    .where('slot_at', '=', slotIso)
    .where('claim_id', '=', claimId)
    .execute();
}

/** Claims on slots after `fromIso` (reshuffle drops them before re-timing). */
export async function deleteFutureClaims(db: Executor, queueId: string, fromIso: string): Promise<void> {
  await db.deleteFrom('queue_slot_claim').where('queue_id', '=', queueId).where('slot_at', '>', fromIso).execute();
}

/**
 * Scheduled posts of a queue sitting in one of its claimed slots after `fromIso`, in slot order. A queued
 * post rescheduled by hand has left its slot and is no longer moved by the queue.
 */
export async function listQueuedPosts(db: Executor, queueId: string, fromIso: string) {
  return db
    .selectFrom('post')
    .innerJoin('queue_slot_claim as c', (j) =>
      j.onRef('c.queue_id', '=', 'post.queue_id').onRef('c.slot_at', '=', 'post.scheduled_for'),
    )
    .select(['post.post_id', 'post.scheduled_for'])
    .where('post.queue_id', '=', queueId)
    .where('post.status', '=', 'scheduled')
    .where('post.scheduled_for', '>', fromIso)
    .orderBy('post.scheduled_for')
    .orderBy('post.post_id')
    .execute();
}

/** Moves a queued post and its pending targets to a new instant; returns the targets to re-arm. */
export async function retimeQueuedPost(
  db: Executor,
  postId: string,
  slotIso: string,
  nowIso: string,
): Promise<string[]> {
  await db
    .updateTable('post')
    .set({ scheduled_for: slotIso, updated_at: nowIso })
    .where('post_id', '=', postId)
    .execute();
  const targets = await db
    .selectFrom('post_target')
    .select('target_id')
    .where('post_id', '=', postId)
    .where('status', '=', 'pending')
    .execute();
  if (targets.length) {
    await db
      .updateTable('post_target')
      .set({ scheduled_for: slotIso, updated_at: nowIso })
      .where('post_id', '=', postId)
      .where('status', '=', 'pending')
      .execute();
  }
  return targets.map((t) => t.target_id);
}
