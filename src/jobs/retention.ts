import type { AppContext } from '../context.js';
import { LOG_RETENTION_DAYS } from '../domain/publishing/logs.js';
import { LOG_RETENTION_MS as WEBHOOK_LOG_RETENTION_MS } from '../domain/webhooks/logs.js';
import { deleteEventsBefore } from '../store/events.js';
import { deletePublishLogsBefore } from '../store/publish-logs.js';
import { deleteWebhookLogsBefore } from '../store/webhook-logs.js';
import type { JobRunner } from './runner.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * How long the event outbox keeps an event: far past the last webhook retry (about 4 h 40 min after the
 * event), the same 7 days as the delivery and publishing logs that point at it.
 */
const EVENT_RETENTION_MS = 7 * DAY_MS;

interface Retained {
  task: string;
  keepMs: number;
  what: string;
  /** Deletes one batch of rows created before `before`; returns how many it deleted. */
  deleteBatch(ctx: AppContext, before: Date): Promise<number>;
}

/**
 * Rows Herald keeps for a while, each deleted by an hourly periodic job once older than its retention:
 * - publishing logs (`GET /v1/posts/logs` and the unified `GET /v1/logs` show 7 days);
 * - webhook delivery logs (spec: 7 days);
 * - the event outbox: it gets an event for every scheduled, published or failed post and every account
 *   change, and would otherwise grow for as long as Herald runs. A delivery still waiting for an event
 *   that is gone finds nothing to send and ends (jobs/deliver-webhook.ts).
 * Each deletes in batches, so no single statement holds the SQLite write lock for long.
 */
const RETAINED: Retained[] = [
  {
    task: 'publish-log.prune',
    keepMs: LOG_RETENTION_DAYS * DAY_MS,
    what: 'publishing log entries',
    deleteBatch: (ctx, before) => deletePublishLogsBefore(ctx.db.kysely, before.toISOString()),
  },
  {
    task: 'webhook-logs.prune',
    keepMs: WEBHOOK_LOG_RETENTION_MS,
    what: 'webhook delivery logs',
    deleteBatch: (ctx, before) => deleteWebhookLogsBefore(ctx.db.kysely, before),
  },
  {
    task: 'event.prune',
    keepMs: EVENT_RETENTION_MS,
    what: 'events',
    deleteBatch: (ctx, before) => deleteEventsBefore(ctx.db.kysely, before),
  },
];

export function registerRetention(runner: JobRunner, ctx: AppContext): void {
  for (const r of RETAINED) {
    runner.registerPeriodic(r.task, HOUR_MS, async () => {
      const before = new Date(ctx.clock.now().getTime() - r.keepMs);
      let removed = 0;
      for (;;) {
        const n = await r.deleteBatch(ctx, before);
        if (n === 0) break;
        removed += n;
      }
      if (removed > 0) ctx.log.info({ removed, task: r.task }, `${r.what} older than the retention pruned`);
    });
  }
}
