import type { Executor } from './db.js';
import { insertRows } from './hot.js';
import type { PublishLogTable } from './schema.js';

export type PublishLogRow = PublishLogTable;

export interface PublishLogFilter {
  tenantId: string;
  /** Profiles the caller may see; null = all of the tenant's. */
  profileIds: string[] | null;
  since: string;
  /** Only entries before this time (ISO). */
  until?: string;
  status?: string;
  platform?: string;
  action?: string;
  postId?: string;
  accountId?: string;
  /** Case-insensitive substring of the content preview, endpoint or account username. */
  search?: string;
}

/** Written by the publishing engine with every outcome (hot statements). */
export async function insertPublishLogs(db: Executor, rows: PublishLogRow[]): Promise<void> {
  await insertRows(db, 'publish_log', rows);
}

function filtered(db: Executor, f: PublishLogFilter) {
  let q = db.selectFrom('publish_log').where('tenant_id', '=', f.tenantId).where('created_at', '>=', f.since);
  if (f.profileIds !== null) {
    if (f.profileIds.length === 0) return q.where('log_id', '=', '');
    q = q.where('profile_id', 'in', f.profileIds);
  }
  if (f.status) q = q.where('status', '=', f.status);
  if (f.until) q = q.where('created_at', '<', f.until);
  if (f.platform) q = q.where('platform', '=', f.platform);
  if (f.action) q = q.where('action', '=', f.action);
  if (f.postId) q = q.where('post_id', '=', f.postId);
  if (f.accountId) q = q.where('account_id', '=', f.accountId);
  if (f.search) {
    // LOWER() on both sides: LIKE is case-sensitive on PostgreSQL and ASCII-insensitive on SQLite.
    const pattern = `%${f.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where((eb) =>
      eb.or([
        eb(eb.fn('lower', ['content_preview']), 'like', eb.val(pattern)),
        eb(eb.fn('lower', ['account_username']), 'like', eb.val(pattern)),
        eb(eb.fn('lower', ['endpoint']), 'like', eb.val(pattern)),
      ]),
    );
  }
  return q;
}

/** Newest first, with the total matching count for skip pagination. */
export async function listPublishLogs(
  db: Executor,
  f: PublishLogFilter,
  page: { limit: number; skip: number },
): Promise<{ rows: PublishLogRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    filtered(db, f)
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('log_id', 'desc')
      .limit(page.limit)
      .offset(page.skip)
      .execute(),
    filtered(db, f)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function findPublishLog(
  db: Executor,
  tenantId: string,
  logId: string,
): Promise<PublishLogRow | undefined> {
  return db
    .selectFrom('publish_log')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('log_id', '=', logId)
    .executeTakeFirst();
}

/** Retention: removes entries older than `before`, at most `batch` per call so a big backlog never holds a long lock. */
export async function deletePublishLogsBefore(db: Executor, before: string, batch = 5000): Promise<number> {
  const res = await db
    .deleteFrom('publish_log')
    .where('log_id', 'in', (eb) =>
      eb.selectFrom('publish_log').select('log_id').where('created_at', '<', before).limit(batch),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
