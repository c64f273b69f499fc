import { sql } from 'kysely';
import type { Db, Executor } from './db.js';
import { hot, insertRows, placeholders } from './hot.js';
import type { AccountTable, PostTable, PostTargetTable } from './schema.js';

export type PostRow = PostTable;
export type PostTargetRow = PostTargetTable;

export async function insertPost(db: Executor, row: PostRow): Promise<void> {
  await insertRows(db, 'post', [row]);
}

export async function insertTargets(db: Executor, rows: PostTargetRow[]): Promise<void> {
  await insertRows(db, 'post_target', rows);
}

export async function findPost(db: Executor, tenantId: string, postId: string): Promise<PostRow | undefined> {
  return db
    .selectFrom('post')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('post_id', '=', postId)
    .executeTakeFirst();
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
  const rows = await db
    .selectFrom('job')
    .select('key')
    .where('key', 'in', keys)
    .where('locked_until', '>', nowIso)
    .execute();
  return rows.map((r) => r.key!);
}

/** Targets of the given posts, in request order. */
export async function listTargets(db: Executor, postIds: string[]): Promise<PostTargetRow[]> {
  if (postIds.length === 0) return [];
  return db
    .selectFrom('post_target')
    .selectAll()
    .where('post_id', 'in', postIds)
    .orderBy('post_id')
    .orderBy('position')
    .execute();
}

export async function updatePost(
  db: Executor,
  tenantId: string,
  postId: string,
  patch: Partial<PostRow>,
): Promise<void> {
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
  const { rows } = await hot<{ n: number }>(
    db,
    'SELECT count(*) AS n FROM post WHERE tenant_id = ? AND created_at >= ? AND is_external = 0',
    [tenantId, sinceIso],
  );
  return Number(rows[0].n);
}

// NOTE: a target settled by a person as not published (error_code 'not_published', see
// domain/posts/resolve-target.ts) never reached the account, so it does not count. A target whose
// outcome is still unknown does: it may be public, and counting it is what keeps the same text from
// going out twice; the 409 then says how to settle it.
const duplicateSql = `
  SELECT t.post_id, t.platform, t.account_id, t.status, p.status AS post_status
    FROM post_target t JOIN post p ON p.post_id = t.post_id
   WHERE t.account_id = ? AND t.content_hash = ? AND t.created_at >= ? AND t.tenant_id = ?
     AND t.status <> 'cancelled' AND p.status NOT IN ('draft', 'cancelled') AND t.post_id <> ?
     AND NOT (t.status = 'failed' AND t.error_code IS NOT NULL AND t.error_code = 'not_published')
   LIMIT 1`;

/** The earlier target a duplicate rule found, with its post's status (`scheduled`: not sent yet). */
export interface DuplicateTarget {
  post_id: string;
  platform: string;
  account_id: string;
  status: string;
  post_status: string;
}

/**
 * A target of another non-draft post that sent the same content (hash) to the same account since
 * `sinceIso`: the duplicate rule. One indexed look-up per target (post_target_duplicate_idx: account_id,
 * content_hash, created_at); an OR over all targets in one statement defeats the index.
 */
export async function findDuplicateTarget(
  db: Executor,
  q: {
    tenantId: string;
    targets: Array<{ accountId: string; contentHash: string }>;
    sinceIso: string;
    excludePostId: string | null;
  },
): Promise<DuplicateTarget | undefined> {
  for (const t of q.targets) {
    const { rows } = await hot<DuplicateTarget>(db, duplicateSql, [
      t.accountId,
      t.contentHash,
      q.sinceIso,
      q.tenantId,
      q.excludePostId ?? '',
    ]);
    if (rows[0]) return rows[0];
  }
  return undefined;
}

export async function findAccounts(db: Executor, tenantId: string, accountIds: string[]): Promise<AccountTable[]> {
  if (accountIds.length === 0) return [];
  const { rows } = await hot<AccountTable>(
    db,
    `SELECT * FROM account WHERE tenant_id = ? AND account_id IN (${placeholders(accountIds.length)})`,
    [tenantId, ...accountIds],
  );
  return rows;
}

export type PostSort = 'scheduled-desc' | 'scheduled-asc' | 'created-desc' | 'created-asc' | 'status' | 'platform';

/** What a list of posts matches. */
export type PostMatch = Omit<PostFilter, 'sortBy' | 'limit' | 'offset'>;

export interface PostFilter {
  tenantId: string;
  /** Profiles the caller may see (null = all): a post is listed when all its targets are in them. */
  profileScope: string[] | null;
  /** A post status, or `unknown`: posts with a target whose outcome is unknown. */
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
  const { count, page } = postListQueries(db, f);
  const totalRow = await count.executeTakeFirstOrThrow();
  const rows = await page.execute();
  return { rows: rows as PostRow[], total: Number(totalRow.n) };
}

/** A post's time in lists and calendars: when it is scheduled, else when it was created. */
const sortAt = sql<string>`coalesce(p.scheduled_for, p.created_at)`;

/** The statements of `listPosts`: the count of matching posts and the page (also used to check plans). */
export function postListQueries(db: Executor, f: PostFilter) {
  const q = matchingPosts(db, f);
  const count = q.select((eb) => eb.fn.countAll<number>().as('n'));
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
  return { count, page: page.limit(f.limit).offset(f.offset) };
}

/** The posts a filter matches (tenant, scope, status, platform, profile, time, text), columns not chosen yet. */
function matchingPosts(db: Executor, f: PostMatch) {
  // External posts (imported for analytics, migration 0220) are not the tenant's posts to manage.
  let q = db.selectFrom('post as p').where('p.tenant_id', '=', f.tenantId).where('p.is_external', '=', 0);
  if (f.status === 'unknown') {
    // Not a post status: the posts with a target whose outcome is unknown (a person must settle it).
    // Read from post_target_tenant_status_idx: few targets are unknown, however many posts there are.
    const tenantId = f.tenantId;
    q = q.where('p.post_id', 'in', (eb) =>
      eb
        .selectFrom('post_target as u')
        .select('u.post_id')
        .where('u.tenant_id', '=', tenantId)
        .where('u.status', '=', 'unknown'),
    );
  } else if (f.status) q = q.where('p.status', '=', f.status);
  if (f.platform) {
    const platform = f.platform;
    q = q.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('post_target as t')
          .select('t.target_id')
          .whereRef('t.post_id', '=', 'p.post_id')
          .where('t.platform', '=', platform),
      ),
    );
  }
  if (f.profileId) {
    const profileId = f.profileId;
    q = q.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('post_target as t')
          .select('t.target_id')
          .whereRef('t.post_id', '=', 'p.post_id')
          .where('t.profile_id', '=', profileId),
      ),
    );
  }
  if (f.profileScope) {
    const scope = f.profileScope.length ? f.profileScope : ['-'];
    q = q.where(({ exists, not, selectFrom, and }) =>
      and([
        exists(selectFrom('post_target as t').select('t.target_id').whereRef('t.post_id', '=', 'p.post_id')),
        not(
          exists(
            selectFrom('post_target as t')
              .select('t.target_id')
              .whereRef('t.post_id', '=', 'p.post_id')
              .where('t.profile_id', 'not in', scope),
          ),
        ),
      ]),
    );
  }
  if (f.fromIso) q = q.where(sortAt, '>=', f.fromIso);
  if (f.toIso) q = q.where(sortAt, '<=', f.toIso);
  if (f.search) {
    const pattern = `%${f.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where(sql<boolean>`lower(p.content) like ${pattern} escape '\\'`);
  }
  return q;
}

/** A post as the calendar draws it: no media, options or results, and the start of its text. */
export interface CalendarPostRow {
  post_id: string;
  title: string | null;
  excerpt: string;
  status: string;
  scheduled_for: string | null;
  created_at: string;
  platforms: string[];
}

/**
 * The first `limit` posts a filter matches in time order (scheduledFor, else createdAt), each with only
 * what a calendar shows, and how many match in all. Two queries: the posts, then their targets' platforms
 * (and a count when there are more than `limit`).
 */
export async function listCalendarPosts(
  db: Executor,
  f: PostMatch,
  limit: number,
  excerptLength: number,
): Promise<{ rows: CalendarPostRow[]; total: number }> {
  const q = matchingPosts(db, f);
  // One more than asked: the count is read only when the period holds more than the limit.
  const posts = await q
    .select([
      'p.post_id',
      'p.title',
      'p.status',
      'p.scheduled_for',
      'p.created_at',
      sql<string>`substr(p.content, 1, ${sql.lit(excerptLength)})`.as('excerpt'),
    ])
    .orderBy(sortAt, 'asc')
    .orderBy('p.post_id', 'asc')
    .limit(limit + 1)
    .execute();
  let total = posts.length;
  if (posts.length > limit) {
    posts.pop();
    total = Number((await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  }
  const platforms = new Map<string, string[]>(posts.map((p) => [p.post_id, []]));
  if (posts.length) {
    const targets = await db
      .selectFrom('post_target')
      .select(['post_id', 'platform'])
      .where('post_id', 'in', [...platforms.keys()])
      .orderBy('post_id')
      .orderBy('position')
      .execute();
    for (const t of targets) {
      const list = platforms.get(t.post_id)!;
      if (!list.includes(t.platform)) list.push(t.platform);
    }
  }
  return { rows: posts.map((p) => ({ ...p, platforms: platforms.get(p.post_id)! })), total };
}
