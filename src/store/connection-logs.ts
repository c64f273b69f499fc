import type { Executor } from './db.js';
import type { ConnectionLogTable } from './schema.js';

export type ConnectionLogRow = ConnectionLogTable;

export async function insertConnectionLog(db: Executor, row: ConnectionLogRow): Promise<void> {
  await db.insertInto('connection_log').values(row).execute();
}

export interface ConnectionLogFilter {
  tenantId: string;
  profileIds: string[] | null;
  platform?: string;
  eventType?: string;
  status?: 'success' | 'failed';
  since: string;
  /** Only entries before this time (ISO). */
  until?: string;
  accountId?: string;
  limit: number;
  skip: number;
}

function filtered(db: Executor, f: ConnectionLogFilter) {
  let q = db.selectFrom('connection_log').where('tenant_id', '=', f.tenantId).where('created_at', '>=', f.since);
  if (f.profileIds) q = f.profileIds.length ? q.where('profile_id', 'in', f.profileIds) : q.where('log_id', '=', '');
  if (f.platform) q = q.where('platform', '=', f.platform);
  if (f.eventType) q = q.where('event_type', '=', f.eventType);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.until) q = q.where('created_at', '<', f.until);
  if (f.accountId) q = q.where('account_id', '=', f.accountId);
  return q;
}

/** Newest first, with the total for pagination. */
export async function listConnectionLogs(
  db: Executor,
  f: ConnectionLogFilter,
): Promise<{ rows: ConnectionLogRow[]; total: number }> {
  const rows = await filtered(db, f)
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('log_id', 'desc')
    .limit(f.limit)
    .offset(f.skip)
    .execute();
  const count = await filtered(db, f)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return { rows, total: Number(count.n) };
}
