import type { AppContext } from '../context.js';
import { registerAnalyticsCollection } from './collect-analytics.js';
import { registerCheckProcessingPost } from './check-processing-post.js';
import { registerMediaCleanup } from './cleanup-media.js';
import { deliverWebhookTask } from './deliver-webhook.js';
import { registerPublishPost } from './publish-post.js';
import { registerRecyclePost } from './recycle-post.js';
import { registerResolveUrlPost } from './resolve-url-post.js';
import { registerTokenRefresh } from './refresh-due-tokens.js';
import { registerRetention } from './retention.js';
import { registerInboxTasks } from './sync-inbox.js';
import type { JobRunner } from './runner.js';
import { DELIVER_TASK } from '../domain/webhooks/fanout.js';

/**
 * The task registry: every job task and periodic job Herald runs. Each feature adds one line that
 * registers its handlers (`resource.verb` names, one file per task).
 */
export function registerTasks(runner: JobRunner, ctx: AppContext): void {
  registerTokenRefresh(runner, ctx);
  registerPublishPost(runner, ctx);
  registerCheckProcessingPost(runner, ctx);
  registerResolveUrlPost(runner, ctx);
  registerRecyclePost(runner, ctx);
  registerMediaCleanup(runner, ctx);
  runner.register(DELIVER_TASK, deliverWebhookTask(ctx));
  registerRetention(runner, ctx);
  registerInboxTasks(runner, ctx);
  registerAnalyticsCollection(runner, ctx);
}
