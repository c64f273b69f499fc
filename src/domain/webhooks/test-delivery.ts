import type { AppContext } from '../../context.js';
import { newId } from '../../lib/ids.js';
import type { Principal } from '../principal.js';
import { recordAttempt, sendDelivery, deliveryBody, type DeliveryEvent } from './deliver.js';
import { getTenantWebhook } from './settings.js';

/**
 * `POST /v1/webhooks/test`: sends `webhook.test` now, whatever the webhook's `events`, and records it
 * like any attempt (log entry, failureCount). Not retried.
 */
export async function testWebhook(
  ctx: AppContext,
  caller: Principal,
  webhookId: string | undefined,
): Promise<{ success: boolean; message: string }> {
  const webhook = await getTenantWebhook(ctx, caller, webhookId);
  const now = ctx.clock.now();
  const event: DeliveryEvent = {
    id: newId(now),
    type: 'webhook.test',
    createdAt: now.toISOString(),
    data: { message: `Test delivery from Herald for webhook "${webhook.name}"` },
  };
  const body = deliveryBody(event);
  const result = await sendDelivery(ctx, webhook, event, body);
  await ctx.db.transaction((tx) => recordAttempt(ctx, tx, webhook, event, body, result, 1, ctx.clock.now()));
  if (result.ok) return { success: true, message: `Test webhook delivered (HTTP ${result.statusCode})` };
  return { success: false, message: `Test webhook failed: ${result.error}` };
}
