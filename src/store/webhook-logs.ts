import type { Executor } from './db.js';
import type { WebhookLogTable } from './schema.js';

export type WebhookLogRow = WebhookLogTable;

export async function insertWebhookLog(db: Executor, row: WebhookLogRow): Promise<void> {
  await db.insertInto('webhook_log').values(row).execute();
}

export interface WebhookLogFilter {
  status?: string;
  event?: string;
  webhookId?: string;
  eventId?: string;
  /** Only entries created at or after this time. */
  since?: Date;
  limit: number;
}

/** Newest first. */
export async function listWebhookLogs(
  db: Executor,
  tenantId: string,
  filter: WebhookLogFilter,
): Promise<WebhookLogRow[]> {
  let q = db.selectFrom('webhook_log').selectAll().where('tenant_id', '=', tenantId);
  if (filter.status) q = q.where('status', '=', filter.status);
  if (filter.event) q = q.where('event', '=', filter.event);
  if (filter.webhookId) q = q.where('webhook_id', '=', filter.webhookId);
  if (filter.eventId) q = q.where('event_id', '=', filter.eventId);
  if (filter.since) q = q.where('created_at', '>=', filter.since.toISOString());
  return q.orderBy('created_at', 'desc').orderBy('log_id', 'desc').limit(filter.limit).execute();
}

/** Newest first within [since, until), the first `take` rows and the total count (the unified log). */
export async function pageWebhookLogs(
  db: Executor,
  tenantId: string,
  f: { since: string; until?: string; status?: string; event?: string },
  take: number,
): Promise<{ rows: WebhookLogRow[]; total: number }> {
  let q = db.selectFrom('webhook_log').where('tenant_id', '=', tenantId).where('created_at', '>=', f.since);
  if (f.until) q = q.where('created_at', '<', f.until);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.event) q = q.where('event', '=', f.event);
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('created_at', 'desc').orderBy('log_id', 'desc').limit(take).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Attempts already recorded for one event to one webhook (the next attempt's number is this + 1). */
export async function countDeliveryAttempts(db: Executor, webhookId: string, eventId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_log')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('webhook_id', '=', webhookId)
    .where('event_id', '=', eventId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The newest recorded attempt of one event to one webhook of the tenant (redelivery replays its payload). */
export async function findLatestDelivery(
  db: Executor,
  tenantId: string,
  webhookId: string,
  eventId: string,
): Promise<WebhookLogRow | undefined> {
  return db
    .selectFrom('webhook_log')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('webhook_id', '=', webhookId)
    .where('event_id', '=', eventId)
    .orderBy('created_at', 'desc')
    .orderBy('log_id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Retention: deletes entries older than `before`. */
/** Deletes up to `batch` entries created before `before` (the retention job calls it until none is left). */
export async function deleteWebhookLogsBefore(db: Executor, before: Date, batch = 5000): Promise<number> {
  const res = await db
    .deleteFrom('webhook_log')
    .where('log_id', 'in', (eb) =>
      eb.selectFrom('webhook_log').select('log_id').where('created_at', '<', before.toISOString()).limit(batch),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
