import type { AppContext } from '../../context.js';
import { newId } from '../../lib/ids.js';
import type { Executor } from '../../store/db.js';
import type { EventTable } from '../../store/schema.js';
import { insertWebhookLog } from '../../store/webhook-logs.js';
import { deleteDeliveryJobs, markDelivered, markFailed, type WebhookRow } from '../../store/webhooks.js';
import { sendWebhookRequest, type SendResult } from './send.js';
import { signatureHeaders } from './sign.js';

/** Spec: the webhook is disabled after this many consecutive failed deliveries. */
const DISABLE_AFTER_FAILURES = 10;

/**
 * Published retry schedule: after a failed attempt n (1-based), the next one waits RETRY_DELAYS_MS[n-1]
 * plus up to 20 % jitter; after the last, the delivery is given up (7 attempts over about 4 h 40 min).
 */
export const RETRY_DELAYS_MS = [30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000];
export const RETRY_JITTER = 0.2;

export function retryDelayMs(failedAttempt: number, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_MS[failedAttempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 + random() * RETRY_JITTER));
}

export interface DeliveryEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

export function storedEvent(row: EventTable): DeliveryEvent {
  return { id: row.event_id, type: row.type, createdAt: row.created_at, data: JSON.parse(row.payload) };
}

/**
 * The request body (reference §9): `id` (the event id, the same on every retry), `event`, `timestamp`
 * (when the event happened), then the event's own fields (`post`, `account`, `message`, ...). Built from
 * the stored event, so every attempt sends the same bytes.
 */
export function deliveryBody(event: DeliveryEvent): string {
  return JSON.stringify({ id: event.id, event: event.type, timestamp: event.createdAt, ...event.data });
}

/** Sends one attempt of `event` to `webhook`. */
export async function sendDelivery(
  ctx: AppContext,
  webhook: WebhookRow,
  event: DeliveryEvent,
  body: string,
): Promise<SendResult> {
  let secret: string | null = null;
  if (webhook.secret !== null) {
    try {
      secret = ctx.secrets.open(webhook.secret);
    } catch {
      // SECRET_KEY changed since the secret was saved: never send unsigned instead; record a failure.
      const error = 'the webhook secret cannot be decrypted (was SECRET_KEY changed?); set the secret again';
      return { ok: false, statusCode: null, responseBody: '', error, responseTime: 0 };
    }
  }
  const timestampSec = Math.floor(ctx.clock.now().getTime() / 1000);
  const custom = JSON.parse(webhook.custom_headers) as Record<string, string>;
  const headers: Record<string, string> = {
    ...custom,
    'content-type': 'application/json',
    'user-agent': 'Herald-Webhooks/1',
    // The event id (the body's `id`) as clients of the hosted service read it: every attempt and every
    // redelivery of one event carries the same.
    'x-zernio-event-id': event.id,
    ...signatureHeaders(secret, event.id, timestampSec, body),
  };
  return sendWebhookRequest({ url: webhook.url, body, headers, allowInsecure: ctx.config.webhookAllowInsecure });
}

/**
 * Writes the attempt's log entry and the webhook's counters in the caller's transaction: a success resets
 * `failureCount` and sets `lastFiredAt`; a failure counts, and the 10th consecutive one disables the
 * webhook and drops its pending deliveries. Returns whether this attempt disabled it.
 */
export async function recordAttempt(
  ctx: AppContext,
  tx: Executor,
  webhook: WebhookRow,
  event: DeliveryEvent,
  body: string,
  result: SendResult,
  attemptNumber: number,
  now: Date,
): Promise<{ disabled: boolean }> {
  await insertWebhookLog(tx, {
    log_id: newId(now),
    tenant_id: webhook.tenant_id,
    webhook_id: webhook.webhook_id,
    webhook_name: webhook.name,
    event_id: event.id,
    event: event.type,
    url: webhook.url,
    status: result.ok ? 'success' : 'failed',
    status_code: result.statusCode,
    request_payload: body,
    response_body: result.responseBody,
    error_message: result.error,
    attempt_number: attemptNumber,
    response_time: result.responseTime,
    created_at: now.toISOString(),
  });
  if (result.ok) {
    await markDelivered(tx, webhook.webhook_id, now);
    return { disabled: false };
  }
  const { disabled, failureCount } = await markFailed(tx, webhook.webhook_id, DISABLE_AFTER_FAILURES, now);
  if (disabled) {
    const dropped = await deleteDeliveryJobs(tx, webhook.webhook_id);
    ctx.log.warn(
      { webhookId: webhook.webhook_id, tenantId: webhook.tenant_id, failureCount, droppedDeliveries: dropped },
      `webhook disabled after ${DISABLE_AFTER_FAILURES} consecutive failed deliveries; pending deliveries dropped`,
    );
  }
  return { disabled };
}
