import { newId } from '../lib/ids.js';
import type { Executor } from '../store/db.js';
import { insertEvents } from '../store/events.js';
import type { EVENT_TYPES } from './event-types.js';

export type EventType = (typeof EVENT_TYPES)[number] | 'webhook.test';

export interface EmittedEvent {
  id: string;
  type: EventType;
  tenantId: string;
  createdAt: string;
  /** The event body without `id`, `event` and `timestamp` (e.g. `{ post: {...} }`). */
  data: Record<string, unknown>;
}

export type EventFanout = (tx: Executor, events: EmittedEvent[], now: Date) => Promise<void>;

/**
 * The event outbox. `emit` writes an event with the transaction that makes the state change, so the
 * event exists if and only if the change does; consumers registered with `addFanout` (webhook delivery)
 * enqueue their own work in that same transaction. One instance lives in the AppContext.
 */
export class EventOutbox {
  private readonly fanouts: EventFanout[] = [];

  addFanout(fanout: EventFanout): void {
    if (!this.fanouts.includes(fanout)) this.fanouts.push(fanout);
  }

  async emit(
    tx: Executor,
    tenantId: string,
    type: EventType,
    data: Record<string, unknown>,
    now: Date,
  ): Promise<EmittedEvent> {
    return (await this.emitMany(tx, [{ tenantId, type, data }], now))[0];
  }

  /** Several events in one insert (and one fanout), in the order given: their ids sort in that order. */
  async emitMany(
    tx: Executor,
    items: { tenantId: string; type: EventType; data: Record<string, unknown> }[],
    now: Date,
  ): Promise<EmittedEvent[]> {
    if (items.length === 0) return [];
    const events: EmittedEvent[] = items.map((e) => ({
      id: newId(now),
      type: e.type,
      tenantId: e.tenantId,
      createdAt: now.toISOString(),
      data: e.data,
    }));
    await insertEvents(
      tx,
      events.map((event) => ({
        event_id: event.id,
        tenant_id: event.tenantId,
        type: event.type,
        payload: JSON.stringify(event.data),
        created_at: event.createdAt,
      })),
    );
    for (const fanout of this.fanouts) await fanout(tx, events, now);
    return events;
  }
}
