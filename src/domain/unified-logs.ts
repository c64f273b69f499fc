import type { AppContext } from '../context.js';
import { invalidFields } from '../errors.js';
import { listConnectionLogs, type ConnectionLogRow } from '../store/connection-logs.js';
import { listPublishLogs, type PublishLogRow } from '../store/publish-logs.js';
import { pageWebhookLogs, type WebhookLogRow } from '../store/webhook-logs.js';
import type { Principal } from './principal.js';

/*
 * GET /v1/logs (today's listLogs): one list, newest first, of what Herald records: every platform call made
 * while publishing (publish_log, type `publishing`), account connections (connection_log, `connections`)
 * and webhook deliveries (webhook_log, `webhooks`). Herald records no messaging, workflow or API-request
 * logs, so those types answer an empty list. Each source is read with the filters it has, up to
 * skip + limit rows, and the pages are merged; the 1.0.1 lists (/v1/posts/logs, /v1/connections/logs,
 * /v1/webhooks/logs) are unchanged.
 */

const DAY_MS = 86_400_000;
/** How far back `days` may reach (the client's maximum); each log keeps 7 days, so older entries are gone. */
export const UNIFIED_MAX_DAYS = 90;
/** Largest `skip` of the unified list: each source is read up to skip + limit rows. */
export const UNIFIED_MAX_SKIP = 10_000;

export const LOG_TYPES = ['all', 'publishing', 'connections', 'webhooks', 'messaging', 'workflow_event', 'api_request'];

/** Publishing actions as the unified log names them (the 1.0.1 names are accepted as filters too). */
const PUBLISH_ACTIONS: Record<string, string> = {
  publish: 'post.publish',
  retry: 'post.retry',
  media_upload: 'post.media_upload',
  rate_limit_pause: 'post.rate_limit_pause',
  token_refresh: 'account.token_refresh',
  cancelled: 'post.cancelled',
  edit: 'post.edit',
};
const CONNECTION_ACTIONS: Record<string, string> = {
  connect_success: 'account.connected',
  connect_failed: 'account.connect_failed',
  disconnect: 'account.disconnected',
  reconnect_success: 'account.reconnected',
  reconnect_failed: 'account.reconnect_failed',
};

const rawAction = (table: Record<string, string>, action: string | undefined) =>
  action === undefined
    ? undefined
    : table[action] !== undefined
      ? action
      : Object.keys(table).find((k) => table[k] === action);

export interface UnifiedLogQuery {
  type?: string;
  status?: string;
  platform?: string;
  action?: string;
  event?: string;
  accountId?: string;
  search?: string;
  days?: number;
  from?: string;
  to?: string;
  statusCode?: number;
  /** Only API-request logs carry these, and Herald keeps none: a filter on them matches nothing. */
  requestId?: string;
  apiKeyId?: string;
  limit?: number;
  skip?: number;
}

interface UnifiedLog {
  _id: string;
  type: string;
  action: string;
  user_id: string | null;
  platform: string | null;
  account_id: string | null;
  status: string;
  status_code: number | null;
  error_message: string | null;
  error_code: string | null;
  duration_ms: number;
  endpoint: string | null;
  request_body: string | null;
  response_body: string | null;
  created_at: string;
  metadata: string;
}

const none = (v: string | undefined) => (v === undefined || v === '' || v === 'all' ? undefined : v);

function time(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(value);
  if (Number.isNaN(t))
    throw invalidFields(`${field} is not an ISO 8601 time`, { [field]: ['must be an ISO 8601 time'] });
  return t;
}

export async function listUnifiedLogs(ctx: AppContext, caller: Principal, q: UnifiedLogQuery) {
  const limit = q.limit ?? 50;
  const skip = q.skip ?? 0;
  const take = skip + limit;
  const nowMs = ctx.clock.now().getTime();
  const from = time(q.from, 'from');
  const to = time(q.to, 'to');
  const since = new Date(Math.max(nowMs - (q.days ?? 7) * DAY_MS, from ?? 0)).toISOString();
  const until = to === undefined ? undefined : new Date(to).toISOString();
  const type = none(q.type);
  const status = none(q.status);
  const platform = none(q.platform);
  const action = none(q.action);
  const onRequests = q.requestId !== undefined || q.apiKeyId !== undefined;
  const wants = (t: string) => !onRequests && (type === undefined || type === t);
  const pages: Array<{ rows: UnifiedLog[]; total: number }> = [];

  const publishAction = rawAction(PUBLISH_ACTIONS, action);
  if (wants('publishing') && (action === undefined || publishAction) && !q.event) {
    const page = await listPublishLogs(
      ctx.db.kysely,
      {
        tenantId: caller.tenantId,
        profileIds: caller.profileIds,
        since,
        until,
        status,
        platform,
        action: publishAction,
        accountId: q.accountId,
        search: q.search?.trim() || undefined,
      },
      { limit: take, skip: 0 },
    );
    pages.push({ rows: page.rows.map(fromPublishLog), total: page.total });
  }
  const connectionAction = rawAction(CONNECTION_ACTIONS, action);
  const connectionStatus = status === 'success' || status === 'failed' ? status : undefined;
  if (
    wants('connections') &&
    (action === undefined || connectionAction) &&
    (status === undefined || connectionStatus) &&
    !q.event &&
    !q.search
  ) {
    const page = await listConnectionLogs(ctx.db.kysely, {
      tenantId: caller.tenantId,
      profileIds: caller.profileIds,
      since,
      until,
      platform,
      eventType: connectionAction,
      status: connectionStatus,
      accountId: q.accountId,
      limit: take,
      skip: 0,
    });
    pages.push({ rows: page.rows.map(fromConnectionLog), total: page.total });
  }
  // Webhook deliveries span every profile: only an unrestricted caller sees them (as /v1/webhooks/logs).
  const webhookAction = action === undefined || action === 'webhook.delivered' || action === 'webhook.failed';
  const webhookStatus = action === 'webhook.delivered' ? 'success' : action === 'webhook.failed' ? 'failed' : status;
  if (
    wants('webhooks') &&
    caller.profileIds === null &&
    webhookAction &&
    (webhookStatus === undefined || webhookStatus === 'success' || webhookStatus === 'failed') &&
    (status === undefined || webhookStatus === status) &&
    !platform &&
    !q.accountId &&
    !q.search
  ) {
    const page = await pageWebhookLogs(
      ctx.db.kysely,
      caller.tenantId,
      { since, until, status: webhookStatus, event: q.event },
      take,
    );
    pages.push({ rows: page.rows.map(fromWebhookLog), total: page.total });
  }

  let merged = pages
    .flatMap((p) => p.rows)
    .sort((a, b) =>
      a.created_at === b.created_at ? b._id.localeCompare(a._id) : b.created_at.localeCompare(a.created_at),
    );
  let total = pages.reduce((n, p) => n + p.total, 0);
  if (q.statusCode !== undefined) {
    // Few rows carry a status code filter's answer; counted over what was read.
    merged = merged.filter((r) => r.status_code === q.statusCode);
    total = merged.length;
  }
  const rows = merged.slice(skip, skip + limit);
  return {
    logs: rows,
    pagination: { total, limit, skip, pages: Math.ceil(total / limit), hasMore: skip + rows.length < total },
  };
}

function fromPublishLog(row: PublishLogRow): UnifiedLog {
  const response = JSON.parse(row.response) as {
    errorMessage?: string | null;
    errorCode?: string | null;
    rawBody?: string | null;
  };
  const request = JSON.parse(row.request) as { rawBody?: string | null };
  return {
    _id: row.log_id,
    type: 'publishing',
    action: PUBLISH_ACTIONS[row.action] ?? `post.${row.action}`,
    user_id: row.tenant_id,
    platform: row.platform,
    account_id: row.account_id,
    status: row.status,
    status_code: row.status_code === null ? null : Number(row.status_code),
    error_message: response.errorMessage ?? null,
    error_code: response.errorCode ?? null,
    duration_ms: Number(row.duration_ms),
    endpoint: row.endpoint,
    request_body: request.rawBody ?? null,
    response_body: response.rawBody ?? null,
    created_at: row.created_at,
    metadata: JSON.stringify({
      postId: row.post_id,
      profileId: row.profile_id,
      accountUsername: row.account_username,
      attemptNumber: Number(row.attempt_number),
      ...(JSON.parse(row.metadata) as Record<string, unknown>),
    }),
  };
}

function fromConnectionLog(row: ConnectionLogRow): UnifiedLog {
  const error = row.error ? (JSON.parse(row.error) as { code?: string; message?: string }) : null;
  return {
    _id: row.log_id,
    type: 'connections',
    action: CONNECTION_ACTIONS[row.event_type] ?? `account.${row.event_type}`,
    user_id: row.user_id,
    platform: row.platform,
    account_id: row.account_id,
    status: row.status,
    status_code: null,
    error_message: error?.message ?? null,
    error_code: error?.code ?? null,
    duration_ms: Number(row.duration_ms),
    endpoint: null,
    request_body: null,
    response_body: null,
    created_at: row.created_at,
    metadata: JSON.stringify({
      profileId: row.profile_id,
      eventType: row.event_type,
      connectionMethod: row.connection_method,
      success: row.success ? JSON.parse(row.success) : null,
    }),
  };
}

function fromWebhookLog(row: WebhookLogRow): UnifiedLog {
  return {
    _id: row.log_id,
    type: 'webhooks',
    action: row.status === 'success' ? 'webhook.delivered' : 'webhook.failed',
    user_id: row.tenant_id,
    platform: null,
    account_id: null,
    status: row.status,
    status_code: row.status_code === null ? null : Number(row.status_code),
    error_message: row.error_message,
    error_code: null,
    duration_ms: Number(row.response_time),
    endpoint: row.url,
    request_body: row.request_payload.slice(0, 5000),
    response_body: row.response_body,
    created_at: row.created_at,
    metadata: JSON.stringify({
      webhookId: row.webhook_id,
      webhookName: row.webhook_name,
      eventId: row.event_id,
      event: row.event,
      attemptNumber: Number(row.attempt_number),
    }),
  };
}
