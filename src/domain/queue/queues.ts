import { AppError, invalidFields, notFound } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import type { Db, Executor } from '../../store/db.js';
import { findProfile } from '../../store/profiles.js';
import {
  clearDefaultQueue,
  deleteQueue as deleteQueueRow,
  findQueue,
  insertQueue,
  listProfileQueues,
  takenSlots,
  updateQueue as updateQueueRow,
  type QueueRow,
} from '../../store/queues.js';
import { assertProfileVisible, type Principal } from '../principal.js';
import { reshuffleQueue } from './assign.js';
import { isValidZone, nextSlots, normalizeSlots, upcomingSlots, type WeeklySlot } from './slots.js';

/** How many upcoming slots the schedule endpoints show next to a queue. */
export const NEXT_SLOTS_SHOWN = 10;

export interface QueueInput {
  profileId: string;
  queueId?: string;
  name?: string;
  timezone: string;
  slots: WeeklySlot[];
  active?: boolean;
  setAsDefault?: boolean;
  reshuffleExisting?: boolean;
}

async function assertProfile(db: Executor, caller: Principal, profileId: string): Promise<void> {
  assertProfileVisible(caller, profileId);
  if (!(await findProfile(db, caller.tenantId, profileId))) throw notFound('Profile', 'profile_not_found');
}

function checkSchedule(input: { timezone: string; name?: string }): void {
  const fields: Record<string, string[]> = {};
  if (!isValidZone(input.timezone)) fields.timezone = ['must be an IANA time zone, e.g. America/New_York'];
  if (input.name !== undefined && !input.name.trim()) fields.name = ['must not be empty'];
  if (Object.keys(fields).length) throw invalidFields(`Invalid queue: ${Object.keys(fields).join(', ')}`, fields);
}

/** `queueId` when given (404 when not this profile's), else the default queue (or undefined). */
async function pickQueue(
  db: Executor,
  caller: Principal,
  profileId: string,
  queueId?: string,
): Promise<QueueRow | undefined> {
  if (queueId) {
    const queue = await findQueue(db, caller.tenantId, profileId, queueId);
    if (!queue) throw notFound('Queue', 'queue_not_found');
    return queue;
  }
  return (await listProfileQueues(db, caller.tenantId, profileId))[0];
}

export async function listQueues(db: Db, caller: Principal, profileId: string): Promise<QueueRow[]> {
  await assertProfile(db.kysely, caller, profileId);
  return listProfileQueues(db.kysely, caller.tenantId, profileId);
}

/** One queue (given or default) with its next slots; `queue` undefined when the profile has none. */
export async function getQueue(db: Db, caller: Principal, profileId: string, queueId: string | undefined, now: Date) {
  await assertProfile(db.kysely, caller, profileId);
  const queue = await pickQueue(db.kysely, caller, profileId, queueId);
  return { queue, nextSlots: queue ? upcoming(queue, now, NEXT_SLOTS_SHOWN) : [] };
}

export function upcoming(queue: QueueRow, now: Date, count: number): Date[] {
  return nextSlots(queue.timezone, JSON.parse(queue.slots) as WeeklySlot[], now, count);
}

/** Creates a queue; the profile's first queue is its default. */
export async function createQueue(db: Db, caller: Principal, input: QueueInput, now: Date): Promise<QueueRow> {
  checkSchedule(input);
  const name = input.name?.trim();
  if (!name) throw invalidFields('name is required', { name: ['is required'] });
  return db.transaction(async (tx) => {
    await assertProfile(tx, caller, input.profileId);
    const existing = await listProfileQueues(tx, caller.tenantId, input.profileId);
    const iso = now.toISOString();
    const row: QueueRow = {
      queue_id: newId(now),
      tenant_id: caller.tenantId,
      profile_id: input.profileId,
      name,
      timezone: input.timezone,
      slots: JSON.stringify(normalizeSlots(input.slots)),
      active: input.active === false ? 0 : 1,
      is_default: existing.length === 0 ? 1 : 0,
      created_at: iso,
      updated_at: iso,
    };
    await insertQueue(tx, row);
    return row;
  });
}

/**
 * PUT semantics: with `queueId` updates that queue; without, updates the default queue, creating it
 * when the profile has none. `reshuffleExisting` re-times already queued posts onto the new slots.
 */
export async function updateQueue(db: Db, caller: Principal, input: QueueInput, now: Date) {
  checkSchedule(input);
  return db.transaction(async (tx) => {
    await assertProfile(tx, caller, input.profileId);
    const queue = await pickQueue(tx, caller, input.profileId, input.queueId);
    const iso = now.toISOString();
    if (!queue) {
      const row: QueueRow = {
        queue_id: newId(now),
        tenant_id: caller.tenantId,
        profile_id: input.profileId,
        name: input.name?.trim() || 'Default',
        timezone: input.timezone,
        slots: JSON.stringify(normalizeSlots(input.slots)),
        active: input.active === false ? 0 : 1,
        is_default: 1,
        created_at: iso,
        updated_at: iso,
      };
      await insertQueue(tx, row);
      return { queue: row, reshuffledCount: 0, isNewQueue: true };
    }
    const patch: Partial<QueueRow> = {
      timezone: input.timezone,
      slots: JSON.stringify(normalizeSlots(input.slots)),
      updated_at: iso,
    };
    if (input.name !== undefined) patch.name = input.name.trim();
    if (input.active !== undefined) patch.active = input.active ? 1 : 0;
    if (input.setAsDefault === true && !queue.is_default) {
      await clearDefaultQueue(tx, caller.tenantId, input.profileId, iso);
      patch.is_default = 1;
    }
    await updateQueueRow(tx, queue.queue_id, patch);
    const updated = { ...queue, ...patch } as QueueRow;
    const reshuffledCount = input.reshuffleExisting ? await reshuffleQueue(tx, updated, now) : 0;
    return { queue: updated, reshuffledCount, isNewQueue: false };
  });
}

/**
 * Deletes one queue (or, without `queueId`, all of the profile's). Deleting the default promotes the
 * oldest remaining queue. Posts already queued keep their time.
 */
export async function deleteQueue(
  db: Db,
  caller: Principal,
  profileId: string,
  queueId: string | undefined,
  now: Date,
) {
  return db.transaction(async (tx) => {
    await assertProfile(tx, caller, profileId);
    const queues = await listProfileQueues(tx, caller.tenantId, profileId);
    const doomed = queueId ? queues.filter((q) => q.queue_id === queueId) : queues;
    if (queueId && doomed.length === 0) throw notFound('Queue', 'queue_not_found');
    for (const q of doomed) await deleteQueueRow(tx, q.queue_id);
    const remaining = queues.filter((q) => !doomed.includes(q));
    if (doomed.some((q) => q.is_default) && remaining.length) {
      const next = [...remaining].sort(
        (a, b) => a.created_at.localeCompare(b.created_at) || a.queue_id.localeCompare(b.queue_id),
      )[0];
      await updateQueueRow(tx, next.queue_id, { is_default: 1, updated_at: now.toISOString() });
    }
    return { deletedCount: doomed.length };
  });
}

/** The next `count` slot times of the queue (given or default), whether taken or not. */
export async function previewQueue(
  db: Db,
  caller: Principal,
  profileId: string,
  queueId: string | undefined,
  count: number,
  now: Date,
) {
  await assertProfile(db.kysely, caller, profileId);
  const queue = await pickQueue(db.kysely, caller, profileId, queueId);
  if (!queue) throw notFound('Queue schedule', 'queue_not_found');
  return { queue, slots: upcoming(queue, now, count) };
}

/** The next slot a queued post would get now (informational: it does not reserve it). */
export async function nextFreeSlot(
  db: Db,
  caller: Principal,
  profileId: string,
  queueId: string | undefined,
  now: Date,
) {
  await assertProfile(db.kysely, caller, profileId);
  const queue = await pickQueue(db.kysely, caller, profileId, queueId);
  if (!queue) throw notFound('Queue schedule', 'queue_not_found');
  if (!queue.active) throw new AppError('invalid', 'queue_inactive', `Queue "${queue.name}" is not active`);
  const taken = await takenSlots(db.kysely, queue.queue_id, now.toISOString());
  for (const slot of upcomingSlots(queue.timezone, JSON.parse(queue.slots) as WeeklySlot[], now)) {
    if (!taken.has(slot.toISOString())) return { queue, slot };
  }
  throw notFound('Free queue slot', 'queue_no_free_slot');
}
