import type { AppContext } from '../context.js';
import { deliveryBody, recordAttempt, retryDelayMs, sendDelivery, storedEvent } from '../domain/webhooks/deliver.js';
import { completeJob, rescheduleJob } from '../store/jobs.js';
import { countDeliveryAttempts } from '../store/webhook-logs.js';
import { findEvent, findWebhookById } from '../store/webhooks.js';
import type { PayloadOf } from './payloads.js';
import type { TaskHandler } from './runner.js';

/**
 * `webhook.deliver` {eventId, webhookId}: one attempt of one event to one webhook. The body is rebuilt
 * from the stored event, so a retry (or a run after a worker died mid-delivery and its lease expired)
 * sends the same id and bytes. The attempt's log entry, the webhook's counters and the job's next step
 * (done, retry at the published schedule, or dropped) are written in one transaction.
 */
export function deliverWebhookTask(ctx: AppContext): TaskHandler<PayloadOf<'webhook.deliver'>> {
  return async ({ job, payload, workerId }) => {
    const { eventId, webhookId } = payload;
    const webhook = await findWebhookById(ctx.db.kysely, webhookId);
    const row = await findEvent(ctx.db.kysely, eventId);
    if (!webhook || webhook.is_active !== 1 || !row || row.tenant_id !== webhook.tenant_id) {
      // Deleted or disabled since the event: nothing to deliver any more.
      return 'done';
    }
    const event = storedEvent(row);
    const body = deliveryBody(event);
    const attemptNumber = (await countDeliveryAttempts(ctx.db.kysely, webhook.webhook_id, event.id)) + 1;
    const result = await sendDelivery(ctx, webhook, event, body);
    const now = ctx.clock.now();
    await ctx.db.transaction(async (tx) => {
      const { disabled } = await recordAttempt(ctx, tx, webhook, event, body, result, attemptNumber, now);
      if (result.ok) {
        await completeJob(tx, job.job_id, workerId);
        return;
      }
      if (disabled) return; // recordAttempt dropped every pending delivery of the webhook, this one included
      const delay = retryDelayMs(attemptNumber);
      if (delay === null) {
        ctx.log.warn({ webhookId, eventId, attempts: attemptNumber }, 'webhook delivery given up after the last retry');
        await completeJob(tx, job.job_id, workerId);
        return;
      }
      await rescheduleJob(tx, job.job_id, workerId, new Date(now.getTime() + delay), result.error);
    });
    return 'handled';
  };
}
