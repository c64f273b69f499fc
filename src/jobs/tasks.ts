import type { AppContext } from '../context.js';
import { registerMediaCleanup } from './cleanup-media.js';
import { deliverWebhookTask } from './deliver-webhook.js';
import { registerEventsPrune } from './prune-events.js';
import { PRUNE_WEBHOOK_LOGS_EVERY_MS, pruneWebhookLogsTask } from './prune-webhook-logs.js';
import { registerPublishLogsPrune } from './publish-logs-prune.js';
import { registerPublishPost } from './publish-post.js';
import { registerTokenRefresh } from './refresh-due-tokens.js';
import type { JobRunner } from './runner.js';

/**
 * The task registry: every job task and periodic job Herald runs. Each feature adds one line that
 * registers its handlers (`resource.verb` names, one file per task).
 */
export function registerTasks(runner: JobRunner, ctx: AppContext): void {
  registerTokenRefresh(runner, ctx);
  registerPublishPost(runner, ctx);
  registerPublishLogsPrune(runner, ctx);
  registerMediaCleanup(runner, ctx);
  runner.register('webhook.deliver', deliverWebhookTask(ctx));
  runner.registerPeriodic('webhook-logs.prune', PRUNE_WEBHOOK_LOGS_EVERY_MS, pruneWebhookLogsTask(ctx));
  registerEventsPrune(runner, ctx);
}
