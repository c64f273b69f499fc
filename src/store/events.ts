import { idFloor } from '../lib/ids.js';
import type { Executor } from './db.js';
import { insertRows } from './hot.js';
import type { EventTable } from './schema.js';

export type EventRow = EventTable;

export async function insertEvents(db: Executor, rows: EventRow[]): Promise<void> {
  await insertRows(db, 'event', rows);
}

/**
 * Retention: removes events made before `before` (their ids sort below `idFloor(before)`, so the primary
 * key finds them), at most `batch` per call so a big backlog never holds a long lock.
 */
export async function deleteEventsBefore(db: Executor, before: Date, batch = 5000): Promise<number> {
  const res = await db
    .deleteFrom('event')
    .where('event_id', 'in', (eb) =>
      eb
        .selectFrom('event')
        .select('event_id')
        .where('event_id', '<', idFloor(before))
        .where('created_at', '<', before.toISOString())
        .orderBy('event_id')
        .limit(batch),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

export async function listEvents(db: Executor, tenantId: string, type?: string): Promise<EventRow[]> {
  let q = db.selectFrom('event').selectAll().where('tenant_id', '=', tenantId);
  if (type) q = q.where('type', '=', type);
  return q.orderBy('created_at').orderBy('event_id').execute();
}
