import type { AppContext } from '../../context.js';
import type { EmittedEvent } from '../events.js';
import type { Executor } from '../../store/db.js';
import { enqueueJobs } from '../../store/jobs.js';
import { deliveryJobKey, listActiveWebhooks, type WebhookRow } from '../../store/webhooks.js';

export const DELIVER_TASK = 'webhook.deliver';

/**
 * Turns each emitted event into one `webhook.deliver` job per active webhook of the tenant subscribed to
 * it, in the transaction that writes the event (outbox): the deliveries exist if and only if the event does.
 * Called once from createContext, so every process that emits events (API or worker) fans them out.
 */
export function installWebhookFanout(ctx: AppContext): void {
  ctx.events.addFanout(async (tx: Executor, events: EmittedEvent[], now: Date) => {
    const sent = events.filter((e) => e.type !== 'webhook.test');
    if (sent.length === 0) return;
    const webhooks = new Map<string, WebhookRow[]>();
    for (const tenantId of new Set(sent.map((e) => e.tenantId)))
      webhooks.set(tenantId, await listActiveWebhooks(tx, tenantId));
    const jobs = sent.flatMap((event) =>
      (webhooks.get(event.tenantId) ?? [])
        .filter((w) => (JSON.parse(w.events) as string[]).includes(event.type))
        .map((w) => ({
          task: DELIVER_TASK,
          payload: { eventId: event.id, webhookId: w.webhook_id },
          runAt: now,
          key: deliveryJobKey(w.webhook_id, event.id),
          // Retries are the task's own schedule; this only bounds a task that keeps crashing.
          maxAttempts: 20,
        })),
    );
    if (jobs.length > 0) await enqueueJobs(tx, jobs, now);
  });
}
