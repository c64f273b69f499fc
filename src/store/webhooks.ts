import { hot } from './hot.js';
import type { Executor } from './db.js';
import type { EventTable, WebhookTable } from './schema.js';

export type WebhookRow = WebhookTable;

/** Job key of the delivery of one event to one webhook: at most one delivery job per pair. */
export const deliveryJobKey = (webhookId: string, eventId: string) => `webhook:${webhookId}:${eventId}`;

export async function insertWebhook(db: Executor, row: WebhookRow): Promise<void> {
  await db.insertInto('webhook').values(row).execute();
}

export async function listWebhooks(db: Executor, tenantId: string): Promise<WebhookRow[]> {
  return db
    .selectFrom('webhook')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .orderBy('webhook_id')
    .execute();
}

/**
 * Serialises webhook creation per tenant for the rest of the transaction: a no-op update takes the owner
 * row's lock on PostgreSQL (SQLite has a single writer already), so the count-then-insert of the
 * 10-webhook limit cannot be raced.
 */
export async function lockTenantForWebhooks(db: Executor, tenantId: string): Promise<void> {
  await db
    .updateTable('user')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('user_id', '=', tenantId)
    .execute();
}

export async function countWebhooks(db: Executor, tenantId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findWebhook(db: Executor, tenantId: string, webhookId: string): Promise<WebhookRow | undefined> {
  return db
    .selectFrom('webhook')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
}

/** By id alone: for the delivery job, whose payload was written by the tenant's own event. */
export async function findWebhookById(db: Executor, webhookId: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhook').selectAll().where('webhook_id', '=', webhookId).executeTakeFirst();
}

/** Active webhooks of a tenant (the fanout filters on their `events`). */
export async function listActiveWebhooks(db: Executor, tenantId: string): Promise<WebhookRow[]> {
  return (await hot<WebhookRow>(db, 'SELECT * FROM webhook WHERE tenant_id = ? AND is_active = 1', [tenantId])).rows;
}

export type WebhookPatch = Partial<
  Pick<WebhookRow, 'name' | 'url' | 'secret' | 'events' | 'is_active' | 'custom_headers' | 'failure_count'>
>;

export async function updateWebhook(
  db: Executor,
  tenantId: string,
  webhookId: string,
  patch: WebhookPatch,
  now: Date,
): Promise<boolean> {
  const res = await db
    .updateTable('webhook')
    .set({ ...patch, updated_at: now.toISOString() })
    .where('tenant_id', '=', tenantId)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function deleteWebhook(db: Executor, tenantId: string, webhookId: string): Promise<boolean> {
  const res = await db
    .deleteFrom('webhook')
    .where('tenant_id', '=', tenantId)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}

/** A success: the consecutive-failure count starts over. */
export async function markDelivered(db: Executor, webhookId: string, now: Date): Promise<void> {
  await db
    .updateTable('webhook')
    .set({ failure_count: 0, last_fired_at: now.toISOString() })
    .where('webhook_id', '=', webhookId)
    .execute();
}

/**
 * A failure: counts it and, at `disableAt` consecutive failures, deactivates the webhook. Returns the new
 * count and whether this very call disabled it (so the caller logs and drops pending work once).
 */
export async function markFailed(
  db: Executor,
  webhookId: string,
  disableAt: number,
  now: Date,
): Promise<{ failureCount: number; disabled: boolean }> {
  await db
    .updateTable('webhook')
    .set((eb) => ({ failure_count: eb('failure_count', '+', 1) }))
    .where('webhook_id', '=', webhookId)
    .execute();
  const disabled = await db
    .updateTable('webhook')
    .set({ is_active: 0, updated_at: now.toISOString() })
    .where('webhook_id', '=', webhookId)
    .where('is_active', '=', 1)
    .where('failure_count', '>=', disableAt)
    .executeTakeFirst();
  const row = await db
    .selectFrom('webhook')
    .select('failure_count')
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();
  return { failureCount: Number(row?.failure_count ?? 0), disabled: Number(disabled.numUpdatedRows) === 1 };
}

/** Drops the delivery jobs still waiting for a webhook (disabled or deleted). Returns how many. */
export async function deleteDeliveryJobs(db: Executor, webhookId: string): Promise<number> {
  const res = await db.deleteFrom('job').where('key', 'like', `webhook:${webhookId}:%`).executeTakeFirst();
  return Number(res.numDeletedRows);
}

export async function findEvent(db: Executor, eventId: string): Promise<EventTable | undefined> {
  return db.selectFrom('event').selectAll().where('event_id', '=', eventId).executeTakeFirst();
}
