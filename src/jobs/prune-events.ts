import type { AppContext } from '../context.js';
import { deleteEventsBefore } from '../store/events.js';
import type { JobRunner } from './runner.js';

export const PRUNE_EVENTS_TASK = 'event.prune';

/**
 * How long the event outbox keeps an event: far past the last webhook retry (about 4 h 40 min after the
 * event), the same 7 days as the delivery and publishing logs that point at it.
 */
export const EVENT_RETENTION_MS = 7 * 24 * 3600 * 1000;

/**
 * `event.prune` (hourly): the outbox gets an event for every scheduled, published or failed post and
 * every account change; without this it would grow for as long as Herald runs. A delivery still waiting
 * for an event that is gone finds nothing to send and ends (jobs/deliver-webhook.ts).
 */
export function registerEventsPrune(runner: JobRunner, ctx: AppContext): void {
  runner.registerPeriodic(PRUNE_EVENTS_TASK, 60 * 60_000, async () => {
    const before = new Date(ctx.clock.now().getTime() - EVENT_RETENTION_MS);
    let removed = 0;
    for (;;) {
      const n = await deleteEventsBefore(ctx.db.kysely, before);
      removed += n;
      if (n === 0) break;
    }
    if (removed > 0) ctx.log.info({ removed }, 'events older than the retention pruned');
  });
}
