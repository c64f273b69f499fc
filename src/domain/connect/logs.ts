import type { AppContext } from '../../context.js';
import { listConnectionLogs as listRows } from '../../store/connection-logs.js';
import type { Principal } from '../principal.js';
import { presentConnectionLog } from '../present/connection-logs.js';

export interface ConnectionLogQuery {
  platform?: string;
  eventType?: string;
  status?: 'success' | 'failed' | 'all';
  days?: number;
  limit?: number;
  skip?: number;
}

/** GET /v1/connections/logs: newest first, 7 days at most, skip-based pagination. */
export async function listConnectionLogs(ctx: AppContext, caller: Principal, q: ConnectionLogQuery) {
  const days = Math.min(q.days ?? 7, 7);
  const limit = q.limit ?? 50;
  const skip = q.skip ?? 0;
  const since = new Date(ctx.clock.now().getTime() - days * 86_400_000).toISOString();
  const { rows, total } = await listRows(ctx.db.kysely, {
    tenantId: caller.tenantId,
    profileIds: caller.profileIds,
    platform: q.platform && q.platform !== 'all' ? q.platform : undefined,
    eventType: q.eventType && q.eventType !== 'all' ? q.eventType : undefined,
    status: q.status && q.status !== 'all' ? q.status : undefined,
    since,
    limit,
    skip,
  });
  return {
    logs: rows.map(presentConnectionLog),
    pagination: { total, limit, skip, pages: Math.ceil(total / limit), hasMore: skip + rows.length < total },
  };
}
