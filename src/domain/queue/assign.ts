import { AppError, invalidFields, notFound } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import type { Executor } from '../../store/db.js';
import { findProfile } from '../../store/profiles.js';
import {
  deleteFutureClaims,
  deleteSlotClaim,
  findQueue,
  findSlotClaim,
  insertSlotClaim,
  isSlotHeld,
  listProfileQueues,
  listQueuedPosts,
  lockQueue,
  retimeQueuedPost,
  takenSlots,
  type QueueRow,
} from '../../store/queues.js';
import { armPublishJobs } from '../publishing/schedule.js';
import { assertProfileVisible, type Principal } from '../principal.js';
import { upcomingSlots, type WeeklySlot } from './slots.js';

/** How many slots one assignment looks through before giving up (a queue filled that far ahead). */
const MAX_SLOTS_SCANNED = 20_000;

export interface QueueSlotAssignment {
  profileId: string;
  queueId: string;
  queueName: string;
  timezone: string;
  /** The slot instant: store it as the post's `scheduled_for` (`toISOString()`). */
  scheduledFor: Date;
}

/**
 * The queue a post joins: `queueId` when given, else the profile's default. Bad input is a 400 that
 * names the field, the way post validation does.
 */
async function resolvePostQueue(
  tx: Executor,
  caller: Pick<Principal, 'tenantId' | 'profileIds'>,
  profileId: string,
  queueId: string | null | undefined,
): Promise<QueueRow> {
  assertProfileVisible(caller as Principal, profileId);
  if (!(await findProfile(tx, caller.tenantId, profileId))) throw notFound('Profile', 'profile_not_found');
  let queue: QueueRow | undefined;
  if (queueId) {
    queue = await findQueue(tx, caller.tenantId, profileId, queueId);
    if (!queue)
      throw invalidFields(
        'queueId is not a queue of this profile',
        { queueId: ['is not a queue of queuedFromProfile'] },
        'queue_not_found',
      );
  } else {
    [queue] = await listProfileQueues(tx, caller.tenantId, profileId);
    if (!queue) {
      throw invalidFields(
        'This profile has no queue: create one with POST /v1/queue/slots',
        { queuedFromProfile: ['has no queue'] },
        'queue_not_found',
      );
    }
  }
  if (!queue.active) throw new AppError('invalid', 'queue_inactive', `Queue "${queue.name}" is not active`);
  return queue;
}

/**
 * Takes the next free slot of `queue` after `now`, in the caller's transaction (the one that writes the
 * post with `queue_id` = the queue and `scheduled_for` = the slot, status `scheduled`).
 *
 * A slot is free when no scheduled post of the queue sits there. Exclusivity across requests,
 * processes and databases comes from the claim row's primary key: a lost race is seen as "not
 * inserted" and the next slot is tried. A claim whose post has left the slot (deleted, rescheduled,
 * published) is stale: it is removed and the slot taken.
 *
 * `movable`: slots whose posts are being moved (reshuffle) count as free; `used`: slots already
 * handed out in this transaction.
 */
async function claimNextSlot(
  tx: Executor,
  queue: QueueRow,
  now: Date,
  opts: { movable?: Set<string>; used?: Set<string> } = {},
): Promise<Date> {
  const nowIso = now.toISOString();
  const taken = await takenSlots(tx, queue.queue_id, nowIso);
  let scanned = 0;
  for (const slot of upcomingSlots(queue.timezone, JSON.parse(queue.slots) as WeeklySlot[], now)) {
    if (++scanned > MAX_SLOTS_SCANNED) break;
    const iso = slot.toISOString();
    if (opts.used?.has(iso) || (taken.has(iso) && !opts.movable?.has(iso))) continue;
    const claim = {
      queue_id: queue.queue_id,
      slot_at: iso,
      claim_id: newId(now),
      tenant_id: queue.tenant_id,
      created_at: nowIso,
    };
    if (await insertSlotClaim(tx, claim)) return slot;
    const existing = await findSlotClaim(tx, queue.queue_id, iso);
    if (existing && !(await isSlotHeld(tx, queue.queue_id, iso))) {
      await deleteSlotClaim(tx, queue.queue_id, iso, existing.claim_id);
      if (await insertSlotClaim(tx, claim)) return slot;
    }
  }
  throw new AppError('invalid', 'queue_no_free_slot', `Queue "${queue.name}" has no free slot`, {
    queueId: queue.queue_id,
  });
}

/**
 * The schedule decision for `POST /v1/posts` with `queuedFromProfile` (and optional `queueId`) and no
 * `scheduledFor`: resolves the queue and claims its next free slot in `tx`. Emits nothing; the posts
 * service writes the post and emits `post.scheduled`.
 */
export async function assignQueueSlot(
  tx: Executor,
  caller: Pick<Principal, 'tenantId' | 'profileIds'>,
  input: { profileId: string; queueId?: string | null },
  now: Date,
): Promise<QueueSlotAssignment> {
  const queue = await resolvePostQueue(tx, caller, input.profileId, input.queueId);
  await lockQueue(tx, queue.queue_id);
  const scheduledFor = await claimNextSlot(tx, queue, now);
  return {
    profileId: queue.profile_id,
    queueId: queue.queue_id,
    queueName: queue.name,
    timezone: queue.timezone,
    scheduledFor,
  };
}

/**
 * Re-times the queue's scheduled posts (due after `now`) onto its current slots, keeping their order,
 * and re-arms their publish jobs. Returns how many posts moved.
 */
export async function reshuffleQueue(tx: Executor, queue: QueueRow, now: Date): Promise<number> {
  const nowIso = now.toISOString();
  const posts = await listQueuedPosts(tx, queue.queue_id, nowIso);
  if (posts.length === 0) return 0;
  // Drop the claims first: the slots of the posts being moved are free for them (and for each other).
  await deleteFutureClaims(tx, queue.queue_id, nowIso);
  const movable = new Set(posts.map((p) => p.scheduled_for!));
  const used = new Set<string>();
  let moved = 0;
  for (const post of posts) {
    const slot = await claimNextSlot(tx, queue, now, { movable, used });
    const iso = slot.toISOString();
    used.add(iso);
    if (iso === post.scheduled_for) continue;
    const targetIds = await retimeQueuedPost(tx, post.post_id, iso, nowIso);
    await armPublishJobs(tx, targetIds, slot, now);
    moved++;
  }
  return moved;
}
