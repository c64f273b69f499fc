import type { AppContext } from '../../context.js';
import { invalidFields, notFound } from '../../errors.js';
import type { AccountRow } from '../../store/accounts.js';
import { findReview, listReviews, summarizeReviews, updateReview, type ReviewRow } from '../../store/inbox/reviews.js';
import { reviewEventData } from '../present/inbox-events.js';
import { presentReview } from '../present/inbox.js';
import type { Principal } from '../principal.js';
import { callPlatform, inboxAccount, inboxAccounts, inboxOf, platformLimitation } from './access.js';
import { listMeta } from './list-meta.js';
import { decodeCursor, page } from './cursor.js';

export async function listInboxReviews(
  ctx: AppContext,
  caller: Principal,
  q: {
    profileId?: string;
    platform?: string;
    minRating?: number;
    maxRating?: number;
    hasReply?: boolean;
    sortBy?: 'date' | 'rating';
    sortOrder?: 'asc' | 'desc';
    limit?: number;
    cursor?: string;
    accountId?: string;
  },
) {
  const accounts = (await inboxAccounts(ctx, caller, q)).filter((a) => inboxOf(ctx, a.platform)?.reviews);
  const limit = q.limit ?? 25;
  const sortBy = q.sortBy ?? 'date';
  const filter = {
    tenantId: caller.tenantId,
    accountIds: accounts.map((a) => a.account_id),
    minRating: q.minRating,
    maxRating: q.maxRating,
    hasReply: q.hasReply,
  };
  const rows = await listReviews(ctx.db.kysely, {
    ...filter,
    sortBy,
    order: q.sortOrder ?? 'desc',
    after: decodeCursor(q.cursor, sortBy === 'rating'),
    limit: limit + 1,
  });
  const p = page(rows, limit, (r) => ({
    value: sortBy === 'rating' ? (r.rating ?? 0) : r.reviewed_at,
    id: r.review_id,
  }));
  const summary = await summarizeReviews(ctx.db.kysely, filter);
  return {
    status: 'success',
    data: p.items.map(presentReview),
    pagination: { hasMore: p.hasMore, nextCursor: p.nextCursor },
    meta: await listMeta(ctx, accounts),
    summary: { totalReviews: summary.total, averageRating: summary.average },
  };
}

async function reviewOf(ctx: AppContext, caller: Principal, reviewId: string, accountId: string) {
  const account = await inboxAccount(ctx, caller, accountId);
  const reviews = inboxOf(ctx, account.platform)?.reviews;
  return { account, reviews, row: await findReview(ctx.db.kysely, account.account_id, reviewId) };
}

export async function replyToInboxReview(
  ctx: AppContext,
  caller: Principal,
  reviewId: string,
  body: { accountId: string; message: string },
) {
  const { account, reviews, row } = await reviewOf(ctx, caller, reviewId, body.accountId);
  const reply = reviews?.reply;
  if (!reply) throw platformLimitation(account.platform, 'replies to reviews');
  if (!body.message.trim()) throw invalidFields('message is empty', { message: ['must not be empty'] });
  if (!row) throw notFound('Review', 'review_not_found');
  const sent = await callPlatform(ctx, account, (creds, io) =>
    reply(creds, { reviewId, text: body.message, extra: JSON.parse(row.metadata) }, io),
  );
  const created = ctx.clock.now().toISOString();
  await changeReview(ctx, account, row, { reply_id: sent.replyId, reply_text: body.message, reply_at: created });
  return { status: 'success', reply: { id: sent.replyId, text: body.message, created }, platform: account.platform };
}

export async function deleteInboxReviewReply(
  ctx: AppContext,
  caller: Principal,
  reviewId: string,
  body: { accountId: string },
) {
  const { account, reviews, row } = await reviewOf(ctx, caller, reviewId, body.accountId);
  const deleteReply = reviews?.deleteReply;
  if (!deleteReply) throw platformLimitation(account.platform, 'deleting review replies');
  if (!row) throw notFound('Review', 'review_not_found');
  await callPlatform(ctx, account, (creds, io) =>
    deleteReply(creds, { reviewId, replyId: row.reply_id, extra: JSON.parse(row.metadata) }, io),
  );
  await changeReview(ctx, account, row, { reply_id: null, reply_text: null, reply_at: null });
  return { status: 'success', message: 'Reply deleted', platform: account.platform };
}

/** Stores a reply change and emits `review.updated` (the review as it now is) in the same transaction. */
async function changeReview(
  ctx: AppContext,
  account: AccountRow,
  row: ReviewRow,
  patch: Pick<ReviewRow, 'reply_id' | 'reply_text' | 'reply_at'>,
) {
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await updateReview(tx, row.review_id, patch);
    await ctx.events.emit(tx, account.tenant_id, 'review.updated', reviewEventData(account, { ...row, ...patch }), now);
  });
}
