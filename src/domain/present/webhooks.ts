import type { WebhookLogRow } from '../../store/webhook-logs.js';
import type { WebhookRow } from '../../store/webhooks.js';

/** The public Webhook (spec "Webhook"). The secret is never returned. */
export function presentWebhook(row: WebhookRow) {
  return {
    _id: row.webhook_id,
    name: row.name,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    isActive: row.is_active === 1,
    customHeaders: JSON.parse(row.custom_headers) as Record<string, string>,
    lastFiredAt: row.last_fired_at,
    failureCount: Number(row.failure_count),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** One delivery attempt (spec "Webhook delivery log entry"), plus the stable `eventId`. */
export function presentWebhookLog(row: WebhookLogRow) {
  let requestPayload: Record<string, unknown> = {};
  try {
    requestPayload = JSON.parse(row.request_payload);
  } catch {
    requestPayload = {};
  }
  return {
    _id: row.log_id,
    webhookId: row.webhook_id,
    webhookName: row.webhook_name,
    eventId: row.event_id,
    event: row.event,
    url: row.url,
    status: row.status as 'success' | 'failed',
    statusCode: row.status_code === null ? null : Number(row.status_code),
    requestPayload,
    responseBody: row.response_body ?? '',
    errorMessage: row.error_message,
    attemptNumber: Number(row.attempt_number),
    responseTime: Number(row.response_time),
    createdAt: row.created_at,
  };
}
