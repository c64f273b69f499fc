import type { Executor } from '../db.js';
import type { InboxCommentTable, InboxPostTable } from '../schema.js';
import { keysetPage, type KeysetPosition } from './keyset.js';

export type InboxPostRow = InboxPostTable;
export type CommentRow = InboxCommentTable;
export type ListedInboxPost = InboxPostRow & { account_username: string };

export async function findInboxPost(
  db: Executor,
  accountId: string,
  platformPostId: string,
): Promise<InboxPostRow | undefined> {
  return db
    .selectFrom('inbox_post')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('platform_post_id', '=', platformPostId)
    .executeTakeFirst();
}

/** Creates the post row unless it exists; answers the row either way. */
export async function ensureInboxPost(db: Executor, row: InboxPostRow): Promise<InboxPostRow> {
  await db
    .insertInto('inbox_post')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'platform_post_id']).doNothing())
    .execute();
  return (await findInboxPost(db, row.account_id, row.platform_post_id))!;
}

/** A new comment under the post: one more in its count, and the post moves up by the comment's time. */
export async function countComment(db: Executor, post: InboxPostRow, commentedAt: string): Promise<void> {
  await db
    .updateTable('inbox_post')
    .set((eb) => ({
      comment_count: eb('comment_count', '+', 1),
      ...(commentedAt > post.last_comment_at ? { last_comment_at: commentedAt } : {}),
    }))
    .where('inbox_post_id', '=', post.inbox_post_id)
    .execute();
}

export async function insertComment(db: Executor, row: CommentRow): Promise<boolean> {
  const res = await db
    .insertInto('inbox_comment')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'platform_comment_id']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export async function findComment(
  db: Executor,
  accountId: string,
  platformCommentId: string,
): Promise<CommentRow | undefined> {
  return db
    .selectFrom('inbox_comment')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('platform_comment_id', '=', platformCommentId)
    .executeTakeFirst();
}

export async function updateComment(
  db: Executor,
  commentId: string,
  patch: Partial<Omit<CommentRow, 'comment_id'>>,
): Promise<void> {
  await db.updateTable('inbox_comment').set(patch).where('comment_id', '=', commentId).execute();
}

export interface InboxPostFilter {
  tenantId: string;
  accountIds: string[];
  minComments?: number;
  since?: string;
  sortBy: 'date' | 'comments';
  order: 'asc' | 'desc';
  after: KeysetPosition | null;
  limit: number;
}

export async function listInboxPosts(db: Executor, f: InboxPostFilter): Promise<ListedInboxPost[]> {
  if (f.accountIds.length === 0) return [];
  let q = db
    .selectFrom('inbox_post')
    .innerJoin('account', 'account.account_id', 'inbox_post.account_id')
    .selectAll('inbox_post')
    .select('account.username as account_username')
    .where('inbox_post.tenant_id', '=', f.tenantId)
    .where('inbox_post.account_id', 'in', f.accountIds);
  if (f.minComments !== undefined) q = q.where('inbox_post.comment_count', '>=', f.minComments);
  if (f.since) q = q.where('inbox_post.last_comment_at', '>=', f.since);
  const sort = f.sortBy === 'comments' ? 'inbox_post.comment_count' : 'inbox_post.last_comment_at';
  return keysetPage(q, sort, 'inbox_post.inbox_post_id', f.order, f.after, f.limit).execute();
}

/**
 * A post's comments (deleted ones left out), oldest first: the replies to `parentId`, or else the
 * comments on the post itself.
 */
export async function listComments(
  db: Executor,
  f: { inboxPostId: string; parentId?: string; after: KeysetPosition | null; limit: number },
): Promise<CommentRow[]> {
  let q = db
    .selectFrom('inbox_comment')
    .selectAll()
    .where('inbox_post_id', '=', f.inboxPostId)
    .where('deleted_at', 'is', null);
  q = f.parentId ? q.where('parent_platform_id', '=', f.parentId) : q.where('parent_platform_id', 'is', null);
  return keysetPage(q, 'commented_at', 'comment_id', 'asc', f.after, f.limit).execute();
}

/** The stored replies to any of `parentIds` under one post, oldest first. */
export async function listReplies(db: Executor, inboxPostId: string, parentIds: string[]): Promise<CommentRow[]> {
  if (parentIds.length === 0) return [];
  return db
    .selectFrom('inbox_comment')
    .selectAll()
    .where('inbox_post_id', '=', inboxPostId)
    .where('deleted_at', 'is', null)
    .where('parent_platform_id', 'in', parentIds)
    .orderBy('commented_at')
    .orderBy('comment_id')
    .execute();
}
