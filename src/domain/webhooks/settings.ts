import type { AppContext } from '../../context.js';
import { forbidden, invalidFields, notFound } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import {
  countWebhooks,
  deleteDeliveryJobs,
  deleteWebhook,
  findWebhook,
  insertWebhook,
  lockTenantForWebhooks,
  listWebhooks,
  updateWebhook,
  type WebhookPatch,
  type WebhookRow,
} from '../../store/webhooks.js';
import type { Principal } from '../principal.js';
import { validateCustomHeaders, validateEvents, validateName, validateSecret, validateUrl } from './validate.js';

/** Spec "Other limits". */
const MAX_WEBHOOKS = 10;

export interface WebhookInput {
  name?: string;
  url?: string;
  secret?: string;
  events?: string[];
  isActive?: boolean;
  customHeaders?: Record<string, string>;
}

/**
 * Webhooks receive every event of the tenant, whatever its profile: a caller restricted to some
 * profiles (scoped key or member) could read other profiles' posts through one, so only unrestricted
 * callers manage them.
 */
export function assertFullAccess(caller: Principal): void {
  if (caller.profileIds !== null) {
    throw forbidden(
      'webhooks_require_full_access',
      'Webhooks receive events of every profile; use a key with access to all profiles',
    );
  }
}

export async function listTenantWebhooks(ctx: AppContext, caller: Principal): Promise<WebhookRow[]> {
  assertFullAccess(caller);
  return listWebhooks(ctx.db.kysely, caller.tenantId);
}

export async function createWebhook(ctx: AppContext, caller: Principal, input: WebhookInput): Promise<WebhookRow> {
  assertFullAccess(caller);
  if (input.url === undefined) throw invalidFields('url is required', { url: ['is required'] });
  const url = await validateUrl(input.url, ctx.config.webhookAllowInsecure);
  const name = validateName(input.name ?? 'Webhook');
  const events = validateEvents(input.events ?? []);
  const customHeaders = validateCustomHeaders(input.customHeaders ?? {});
  const secret = input.secret === undefined ? null : validateSecret(input.secret);
  const now = ctx.clock.now();
  const row: WebhookRow = {
    webhook_id: newId(now),
    tenant_id: caller.tenantId,
    created_by: caller.userId,
    name,
    url,
    secret: secret === null ? null : ctx.secrets.seal(secret),
    events: JSON.stringify(events),
    is_active: input.isActive === false ? 0 : 1,
    custom_headers: JSON.stringify(customHeaders),
    failure_count: 0,
    last_fired_at: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  await ctx.db.transaction(async (tx) => {
    // Counted under the tenant's lock in the transaction that inserts: concurrent creates cannot pass 10.
    await lockTenantForWebhooks(tx, caller.tenantId);
    if ((await countWebhooks(tx, caller.tenantId)) >= MAX_WEBHOOKS) {
      throw invalidFields(
        `At most ${MAX_WEBHOOKS} webhooks per user`,
        { webhooks: [`at most ${MAX_WEBHOOKS} per user`] },
        'webhook_limit_reached',
      );
    }
    await insertWebhook(tx, row);
  });
  return row;
}

/** Changes only the given fields. */
export async function updateTenantWebhook(
  ctx: AppContext,
  caller: Principal,
  webhookId: string | undefined,
  input: WebhookInput,
): Promise<WebhookRow> {
  assertFullAccess(caller);
  if (!webhookId) throw invalidFields('_id (or webhookId) is required', { _id: ['is required'] });
  const existing = await findWebhook(ctx.db.kysely, caller.tenantId, webhookId);
  if (!existing) throw notFound('Webhook', 'webhook_not_found');
  const patch: WebhookPatch = {};
  if (input.url !== undefined) patch.url = await validateUrl(input.url, ctx.config.webhookAllowInsecure);
  if (input.name !== undefined) patch.name = validateName(input.name);
  if (input.events !== undefined) patch.events = JSON.stringify(validateEvents(input.events));
  if (input.customHeaders !== undefined)
    patch.custom_headers = JSON.stringify(validateCustomHeaders(input.customHeaders));
  if (input.secret !== undefined) patch.secret = ctx.secrets.seal(validateSecret(input.secret));
  if (input.isActive !== undefined) {
    patch.is_active = input.isActive ? 1 : 0;
    // Re-enabling starts the consecutive-failure count over; otherwise one more failure would disable it again.
    if (input.isActive && existing.is_active === 0) patch.failure_count = 0;
  }
  const now = ctx.clock.now();
  const updated = await ctx.db.transaction(async (tx) => {
    if (!(await updateWebhook(tx, caller.tenantId, webhookId, patch, now))) return undefined;
    if (patch.is_active === 0) await deleteDeliveryJobs(tx, webhookId);
    return findWebhook(tx, caller.tenantId, webhookId);
  });
  if (!updated) throw notFound('Webhook', 'webhook_not_found');
  return updated;
}

export async function deleteTenantWebhook(
  ctx: AppContext,
  caller: Principal,
  webhookId: string | undefined,
): Promise<void> {
  assertFullAccess(caller);
  if (!webhookId) throw invalidFields('id (or webhookId) is required', { id: ['is required'] });
  const deleted = await ctx.db.transaction(async (tx) => {
    if (!(await deleteWebhook(tx, caller.tenantId, webhookId))) return false;
    await deleteDeliveryJobs(tx, webhookId);
    return true;
  });
  if (!deleted) throw notFound('Webhook', 'webhook_not_found');
}

export async function getTenantWebhook(
  ctx: AppContext,
  caller: Principal,
  webhookId: string | undefined,
): Promise<WebhookRow> {
  assertFullAccess(caller);
  if (!webhookId) throw invalidFields('webhookId is required', { webhookId: ['is required'] });
  const row = await findWebhook(ctx.db.kysely, caller.tenantId, webhookId);
  if (!row) throw notFound('Webhook', 'webhook_not_found');
  return row;
}
