import { sql } from 'kysely';
import type { Executor } from '../db.js';
import type { InboxReviewTable } from '../schema.js';
import { keysetPage, type KeysetPosition } from './keyset.js';

export type ReviewRow = InboxReviewTable;
export type ListedReview = ReviewRow & { account_username: string };

/** Inserts a review unless the account has it; true when this call created it. */
export async function insertReview(db: Executor, row: ReviewRow): Promise<boolean> {
  const res = await db
    .insertInto('inbox_review')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'platform_review_id']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export async function findReview(
  db: Executor,
  accountId: string,
  platformReviewId: string,
): Promise<ReviewRow | undefined> {
  return db
    .selectFrom('inbox_review')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('platform_review_id', '=', platformReviewId)
    .executeTakeFirst();
}

export async function updateReview(
  db: Executor,
  reviewId: string,
  patch: Partial<Omit<ReviewRow, 'review_id'>>,
): Promise<void> {
  await db.updateTable('inbox_review').set(patch).where('review_id', '=', reviewId).execute();
}

export interface ReviewFilter {
  tenantId: string;
  accountIds: string[];
  minRating?: number;
  maxRating?: number;
  hasReply?: boolean;
}

function filtered(db: Executor, f: ReviewFilter) {
  let q = db
    .selectFrom('inbox_review')
    .innerJoin('account', 'account.account_id', 'inbox_review.account_id')
    .where('inbox_review.tenant_id', '=', f.tenantId)
    .where('inbox_review.account_id', 'in', f.accountIds);
  if (f.minRating !== undefined) q = q.where('inbox_review.rating', '>=', f.minRating);
  if (f.maxRating !== undefined) q = q.where('inbox_review.rating', '<=', f.maxRating);
  if (f.hasReply !== undefined) q = q.where('inbox_review.reply_id', f.hasReply ? 'is not' : 'is', null);
  return q;
}

export async function listReviews(
  db: Executor,
  f: ReviewFilter & { sortBy: 'date' | 'rating'; order: 'asc' | 'desc'; after: KeysetPosition | null; limit: number },
): Promise<ListedReview[]> {
  if (f.accountIds.length === 0) return [];
  const q = filtered(db, f).selectAll('inbox_review').select('account.username as account_username');
  // NOTE: a review without a rating sorts as 0 so the keyset compares numbers.
  const sort = f.sortBy === 'rating' ? 'inbox_review.rating' : 'inbox_review.reviewed_at';
  return keysetPage(q, sort, 'inbox_review.review_id', f.order, f.after, f.limit).execute();
}

/** Count and average rating of the filtered reviews (every page's `summary`). */
export async function summarizeReviews(
  db: Executor,
  f: ReviewFilter,
): Promise<{ total: number; average: number | null }> {
  if (f.accountIds.length === 0) return { total: 0, average: null };
  const row = await filtered(db, f)
    .select([sql<number>`count(*)`.as('n'), sql<number | null>`avg(inbox_review.rating)`.as('avg')])
    .executeTakeFirstOrThrow();
  const avg = row.avg === null ? null : Number(row.avg);
  return { total: Number(row.n), average: avg === null ? null : Math.round(avg * 100) / 100 };
}
