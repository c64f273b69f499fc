import { sql } from 'kysely';
import type { Db, Executor } from './db.js';
import type { AccountTable, PostTable, PostTargetTable } from './schema.js';

export type PostRow = PostTable;
export type PostTargetRow = PostTargetTable;

export async function insertPost(db: Executor, row: PostRow): Promise<void> {
  await db.insertInto('post').values(row).execute();
}

export async function insertTargets(db: Executor, rows: PostTargetRow[]): Promise<void> {
  if (rows.length) await db.insertInto('post_target').values(rows).execute();
}

export async function findPost(db: Executor, tenantId: string, postId: string): Promise<PostRow | undefined> {
  return db.selectFrom('post').selectAll().where('tenant_id', '=', tenantId).where('post_id', '=', postId).executeTakeFirst();
}

/**
 * Takes the post's row lock for the rest of the transaction (a no-op update, the same lock the publishing
 * engine takes first) and returns the post as it is under that lock; undefined when it is not the tenant's.
 */
export async function lockPost(db: Executor, tenantId: string, postId: string): Promise<PostRow | undefined> {
  return db
    .updateTable('post')
    .set((eb) => ({ post_id: eb.ref('post_id') }))
    .where('tenant_id', '=', tenantId)
    .where('post_id', '=', postId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Serialises post creation per tenant for the rest of the transaction, so the monthly count and the
 * duplicate check see each other's posts. PostgreSQL: a transaction-scoped advisory lock. SQLite: a
 * single writer already serialises write transactions.
 */
export async function lockTenantPosts(db: Db, tx: Executor, tenantId: string): Promise<void> {
  if (db.dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${`posts:${tenantId}`}))`.execute(tx);
}

/** Job keys among `keys` whose job a worker holds right now (a publish about to happen). */
export async function leasedJobKeys(db: Executor, keys: string[], nowIso: string): Promise<string[]> {
  if (keys.length === 0) return [];
  const rows = await db.selectFrom('job').select('key').where('key', 'in', keys).where('locked_until', '>', nowIso).execute();
  return rows.map((r) => r.key!);
}

/** Targets of the given posts, in request order. */
export async function listTargets(db: Executor, postIds: string[]): Promise<PostTargetRow[]> {
  if (postIds.length === 0) return [];
  return db.selectFrom('post_target').selectAll().where('post_id', 'in', postIds).orderBy('post_id').orderBy('position').execute();
}

export async function updatePost(db: Executor, tenantId: string, postId: string, patch: Partial<PostRow>): Promise<void> {
  await db.updateTable('post').set(patch).where('tenant_id', '=', tenantId).where('post_id', '=', postId).execute();
}

export async function updateTarget(db: Executor, targetId: string, patch: Partial<PostTargetRow>): Promise<void> {
  await db.updateTable('post_target').set(patch).where('target_id', '=', targetId).execute();
}

export async function deleteTargets(db: Executor, targetIds: string[]): Promise<void> {
  if (targetIds.length) await db.deleteFrom('post_target').where('target_id', 'in', targetIds).execute();
}

export async function deletePost(db: Executor, tenantId: string, postId: string): Promise<void> {
  await db.deleteFrom('post_target').where('tenant_id', '=', tenantId).where('post_id', '=', postId).execute();
  await db.deleteFrom('post').where('tenant_id', '=', tenantId).where('post_id', '=', postId).execute();
}

/** Posts created at or after `sinceIso` (the monthly plan limit). */
export async function countPostsSince(db: Executor, tenantId: string, sinceIso: string): Promise<number> {
  const row = await db
    .selectFrom('post')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('created_at', '>=', sinceIso)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * A target of another non-draft post that sent the same content (hash) to the same account since
 * `sinceIso`: the duplicate rule, for all of a post's targets in one statement. Served by
 * post_target_duplicate_idx (account_id, content_hash, created_at).
 */
export async function findDuplicateTarget(
  db: Executor,
  q: { tenantId: string; targets: Array<{ accountId: string; contentHash: string }>; sinceIso: string; excludePostId: string | null },
): Promise<{ post_id: string; platform: string; account_id: string } | undefined> {
  if (q.targets.length === 0) return undefined;
  let query = db
    .selectFrom('post_target as t')
    .innerJoin('post as p', 'p.post_id', 't.post_id')
    .select(['t.post_id', 't.platform', 't.account_id'])
    .where((eb) => eb.or(q.targets.map((t) => eb.and([eb('t.account_id', '=', t.accountId), eb('t.content_hash', '=', t.contentHash)]))))
    .where('t.created_at', '>=', q.sinceIso)
    .where('t.tenant_id', '=', q.tenantId)
    .where('p.status', 'not in', ['draft', 'cancelled'])
    .where('t.status', '!=', 'cancelled');
  if (q.excludePostId) query = query.where('t.post_id', '!=', q.excludePostId);
  return query.limit(1).executeTakeFirst();
}

export async function findAccounts(db: Executor, tenantId: string, accountIds: string[]): Promise<AccountTable[]> {
  if (accountIds.length === 0) return [];
  return db.selectFrom('account').selectAll().where('tenant_id', '=', tenantId).where('account_id', 'in', accountIds).execute();
}

export type PostSort = 'scheduled-desc' | 'scheduled-asc' | 'created-desc' | 'created-asc' | 'status' | 'platform';

export interface PostFilter {
  tenantId: string;
  /** Profiles the caller may see (null = all): a post is listed when all its targets are in them. */
  profileScope: string[] | null;
  status?: string;
  platform?: string;
  profileId?: string;
  /** Inclusive bounds on the post's time (scheduledFor, else createdAt), ISO UTC. */
  fromIso?: string;
  toIso?: string;
  search?: string;
  sortBy: PostSort;
  limit: number;
  offset: number;
}

/** One page of posts and the total matching the filter. */
export async function listPosts(db: Executor, f: PostFilter): Promise<{ rows: PostRow[]; total: number }> {
  const sortAt = sql<string>`coalesce(p.scheduled_for, p.created_at)`;
  let q = db.selectFrom('post as p').where('p.tenant_id', '=', f.tenantId);
  if (f.status) q = q.where('p.status', '=', f.status);
  if (f.platform) {
    const platform = f.platform;
    q = q.where(({ exists, selectFrom }) =>
      exists(selectFrom('post_target as t').select('t.target_id').whereRef('t.post_id', '=', 'p.post_id').where('t.platform', '=', platform)),
    );
  }
  if (f.profileId) {
    const profileId = f.profileId;
    q = q.where(({ exists, selectFrom }) =>
      exists(selectFrom('post_target as t').select('t.target_id').whereRef('t.post_id', '=', 'p.post_id').where('t.profile_id', '=', profileId)),
    );
  }
  if (f.profileScope) {
    const scope = f.profileScope.length ? f.profileScope : ['-'];
    q = q.where(({ exists, not, selectFrom, and }) =>
      and([
        exists(selectFrom('post_target as t').select('t.target_id').whereRef('t.post_id', '=', 'p.post_id')),
        not(exists(selectFrom('post_target as t').select('t.target_id').whereRef('t.post_id', '=', 'p.post_id').where('t.profile_id', 'not in', scope))),
      ]),
    );
  }
  if (f.fromIso) q = q.where(sortAt, '>=', f.fromIso);
  if (f.toIso) q = q.where(sortAt, '<=', f.toIso);
  if (f.search) {
    const pattern = `%${f.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where(sql<boolean>`lower(p.content) like ${pattern} escape '\\'`);
  }
  const totalRow = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  let page = q.selectAll('p');
  switch (f.sortBy) {
    case 'scheduled-asc':
      page = page.orderBy(sortAt, 'asc').orderBy('p.post_id', 'asc');
      break;
    case 'created-desc':
      page = page.orderBy('p.created_at', 'desc').orderBy('p.post_id', 'desc');
      break;
    case 'created-asc':
      page = page.orderBy('p.created_at', 'asc').orderBy('p.post_id', 'asc');
      break;
    case 'status':
      page = page.orderBy('p.status', 'asc').orderBy('p.created_at', 'desc').orderBy('p.post_id', 'desc');
      break;
    case 'platform':
      page = page
        .orderBy(sql`(select min(t.platform) from post_target t where t.post_id = p.post_id)`, 'asc')
        .orderBy('p.created_at', 'desc')
        .orderBy('p.post_id', 'desc');
      break;
    default:
      page = page.orderBy(sortAt, 'desc').orderBy('p.post_id', 'desc');
  }
  const rows = await page.limit(f.limit).offset(f.offset).execute();
  return { rows: rows as PostRow[], total: Number(totalRow.n) };
}
