import type { Executor } from './db.js';
import { insertRows } from './hot.js';
import type { EventTable } from './schema.js';

export type EventRow = EventTable;

export async function insertEvent(db: Executor, row: EventRow): Promise<void> {
  await insertRows(db, 'event', [row]);
}

export async function listEvents(db: Executor, tenantId: string, type?: string): Promise<EventRow[]> {
  let q = db.selectFrom('event').selectAll().where('tenant_id', '=', tenantId);
  if (type) q = q.where('type', '=', type);
  return q.orderBy('created_at').orderBy('event_id').execute();
}
