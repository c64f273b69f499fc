import type { Executor } from './db.js';
import { hot, insertRows } from './hot.js';
import type { PostRecycledCopyTable, PostRecyclingTable } from './schema.js';

/* Post recycling: a post's configuration and rotation state, and the copies it made (domain/recycling). */

export type RecyclingRow = PostRecyclingTable;

export async function findRecycling(db: Executor, postId: string): Promise<RecyclingRow | undefined> {
  return (await hot<RecyclingRow>(db, 'SELECT * FROM post_recycling WHERE post_id = ?', [postId])).rows[0];
}

/** The recycling rows of the given posts (those that have one). */
export async function listRecycling(db: Executor, postIds: string[]): Promise<RecyclingRow[]> {
  if (postIds.length === 0) return [];
  return db.selectFrom('post_recycling').selectAll().where('post_id', 'in', postIds).execute();
}

/** Creates or replaces the post's recycling row. */
export async function saveRecycling(db: Executor, row: RecyclingRow): Promise<void> {
  await db.deleteFrom('post_recycling').where('post_id', '=', row.post_id).execute();
  await insertRows(db, 'post_recycling', [row]);
}

export async function updateRecycling(
  db: Executor,
  postId: string,
  patch: Partial<Omit<RecyclingRow, 'post_id' | 'tenant_id'>>,
): Promise<void> {
  await db.updateTable('post_recycling').set(patch).where('post_id', '=', postId).execute();
}

/**
 * Per account among `accountIds`: how many other posts with active recycling have a target on it (the
 * 10-per-account limit). Accounts with none are absent.
 */
export async function countActiveRecyclingByAccount(
  db: Executor,
  tenantId: string,
  accountIds: string[],
  excludePostId: string | null,
): Promise<Map<string, number>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('post_target as t')
    .innerJoin('post_recycling as r', 'r.post_id', 't.post_id')
    .select(['t.account_id', (eb) => eb.fn.count<number>('t.post_id').distinct().as('n')])
    .where('t.tenant_id', '=', tenantId)
    .where('t.account_id', 'in', accountIds)
    .where('r.active', '=', 1)
    .where('t.post_id', '<>', excludePostId ?? '')
    .groupBy('t.account_id')
    .execute();
  return new Map(rows.map((r) => [r.account_id, Number(r.n)]));
}

/** Records that `row.post_id` is the copy of cycle `row.cycle`: a second copy of one cycle violates the unique index. */
export async function insertRecycledCopy(db: Executor, row: PostRecycledCopyTable): Promise<void> {
  await insertRows(db, 'post_recycled_copy', [row]);
}

/** The post each of `postIds` was recycled from, for those that are copies. */
export async function recycledSources(db: Executor, postIds: string[]): Promise<Map<string, string>> {
  if (postIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('post_recycled_copy')
    .select(['post_id', 'source_post_id'])
    .where('post_id', 'in', postIds)
    .execute();
  return new Map(rows.map((r) => [r.post_id, r.source_post_id]));
}

/** The copies made from `sourcePostId`, by cycle. */
export async function listRecycledCopies(db: Executor, sourcePostId: string): Promise<PostRecycledCopyTable[]> {
  return db
    .selectFrom('post_recycled_copy')
    .selectAll()
    .where('source_post_id', '=', sourcePostId)
    .orderBy('cycle')
    .execute();
}
