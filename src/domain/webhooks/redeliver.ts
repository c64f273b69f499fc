import type { AppContext } from '../../context.js';
import { AppError, invalid, notFound } from '../../errors.js';
import { countDeliveryAttempts, findLatestDelivery } from '../../store/webhook-logs.js';
import type { Principal } from '../principal.js';
import { recordAttempt, sendDelivery, type DeliveryEvent } from './deliver.js';
import { LOG_RETENTION_MS } from './logs.js';
import { getTenantWebhook } from './settings.js';

/**
 * `POST /v1/webhooks/logs/redeliver`: sends a past delivery again, now, to the webhook's current URL. The
 * body is the stored one, byte for byte, so its `id` (the event id, also the `webhook-id` header) is the
 * original's and a receiver that dedupes on it sees a repeat; signatures are computed afresh. The replay
 * is recorded as the next attempt of that event, with the webhook's counters, like any attempt. Not retried.
 */
export async function redeliverWebhookEvent(
  ctx: AppContext,
  caller: Principal,
  input: { webhookId: string; eventId: string },
): Promise<{ success: boolean; message: string }> {
  const webhook = await getTenantWebhook(ctx, caller, input.webhookId);
  const logged = await findLatestDelivery(ctx.db.kysely, caller.tenantId, webhook.webhook_id, input.eventId);
  if (!logged) throw notFound('Webhook delivery', 'webhook_event_not_found');
  const cutoff = new Date(ctx.clock.now().getTime() - LOG_RETENTION_MS).toISOString();
  if (logged.created_at < cutoff) {
    throw new AppError(
      'unprocessable',
      'delivery_expired',
      'The delivery is past the log retention; its payload is gone',
      {
        retentionDays: LOG_RETENTION_MS / 86_400_000,
      },
    );
  }
  if (webhook.is_active !== 1)
    throw invalid('webhook_inactive', 'The webhook is disabled; enable it before redelivering');
  const event: DeliveryEvent = { id: logged.event_id, type: logged.event, createdAt: logged.created_at, data: {} };
  const body = logged.request_payload;
  const attempt = (await countDeliveryAttempts(ctx.db.kysely, webhook.webhook_id, event.id)) + 1;
  const result = await sendDelivery(ctx, webhook, event, body);
  await ctx.db.transaction((tx) => recordAttempt(ctx, tx, webhook, event, body, result, attempt, ctx.clock.now()));
  if (result.ok) return { success: true, message: `Event redelivered (HTTP ${result.statusCode})` };
  return { success: false, message: `Redelivery failed: ${result.error}` };
}
