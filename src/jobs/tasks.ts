import type { AppContext } from '../context.js';
import { deliverWebhookTask } from './deliver-webhook.js';
import { PRUNE_WEBHOOK_LOGS_EVERY_MS, pruneWebhookLogsTask } from './prune-webhook-logs.js';
import type { JobRunner } from './runner.js';

/**
 * The task registry: every job task and periodic job Herald runs. Each feature adds one line that
 * registers its handlers (`resource.verb` names, one file per task).
 */
export function registerTasks(runner: JobRunner, ctx: AppContext): void {
  runner.register('webhook.deliver', deliverWebhookTask(ctx));
  runner.registerPeriodic('webhook-logs.prune', PRUNE_WEBHOOK_LOGS_EVERY_MS, pruneWebhookLogsTask(ctx));
}
