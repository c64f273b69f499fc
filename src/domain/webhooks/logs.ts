import type { AppContext } from '../../context.js';
import { listWebhookLogs, type WebhookLogRow } from '../../store/webhook-logs.js';
import type { Principal } from '../principal.js';
import { assertFullAccess } from './settings.js';

/** Delivery logs are kept this long (spec "Other limits"); the hourly `webhook-logs.prune` job deletes older ones. */
export const LOG_RETENTION_MS = 7 * 24 * 3600 * 1000;

export interface WebhookLogQuery {
  limit?: number;
  status?: 'success' | 'failed';
  event?: string;
  webhookId?: string;
  eventId?: string;
}

/** Newest first. Entries past retention are hidden even before the cleanup job removes them. */
export async function listTenantWebhookLogs(
  ctx: AppContext,
  caller: Principal,
  query: WebhookLogQuery,
): Promise<WebhookLogRow[]> {
  assertFullAccess(caller);
  return listWebhookLogs(ctx.db.kysely, caller.tenantId, {
    limit: query.limit ?? 50,
    status: query.status,
    event: query.event,
    webhookId: query.webhookId,
    eventId: query.eventId,
    since: new Date(ctx.clock.now().getTime() - LOG_RETENTION_MS),
  });
}
