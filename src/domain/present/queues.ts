import type { QueueRow } from '../../store/queues.js';
import { formatInZone, type WeeklySlot } from '../queue/slots.js';

/** The public `QueueSchedule` shape (reference §4.7). */
export function presentQueue(row: QueueRow) {
  return {
    _id: row.queue_id,
    profileId: row.profile_id,
    name: row.name,
    timezone: row.timezone,
    slots: JSON.parse(row.slots) as WeeklySlot[],
    active: row.active === 1,
    isDefault: row.is_default === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Slot instants as the API shows them: with the queue zone's offset. */
export function presentSlots(row: QueueRow, instants: Date[]): string[] {
  return instants.map((d) => formatInZone(d, row.timezone));
}
