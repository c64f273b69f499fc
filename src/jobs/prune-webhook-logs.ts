import type { AppContext } from '../context.js';
import { LOG_RETENTION_MS } from '../domain/webhooks/logs.js';
import { deleteWebhookLogsBefore } from '../store/webhook-logs.js';
import type { TaskHandler } from './runner.js';

export const PRUNE_WEBHOOK_LOGS_EVERY_MS = 3600_000;

/** `webhook-logs.prune` (hourly): deletes delivery log entries older than the 7-day retention. */
export function pruneWebhookLogsTask(ctx: AppContext): TaskHandler {
  return async () => {
    const removed = await deleteWebhookLogsBefore(ctx.db.kysely, new Date(ctx.clock.now().getTime() - LOG_RETENTION_MS));
    if (removed > 0) ctx.log.info({ removed }, 'webhook delivery logs pruned');
  };
}
