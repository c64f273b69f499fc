import type { AppContext } from '../../context.js';
import { newId } from '../../lib/ids.js';
import type {
  InboundComment,
  InboundMention,
  InboundMessage,
  InboundReview,
  InboxBatch,
} from '../../platforms/types.js';
import type { AccountRow } from '../../store/accounts.js';
import { inSavepoint, type Executor } from '../../store/db.js';
import { cleanTextDeep } from '../../lib/text.js';
import {
  countComment,
  ensureInboxPost,
  insertComment,
  type CommentRow,
  type InboxPostRow,
} from '../../store/inbox/comments.js';
import {
  insertMessage,
  touchConversation,
  type ConversationRow,
  type MessageRow,
} from '../../store/inbox/conversations.js';
import { insertMention } from '../../store/inbox/mentions.js';
import { findReview, insertReview, updateReview, type ReviewRow } from '../../store/inbox/reviews.js';
import { addInboxAnalytics } from '../../store/inbox-analytics-keep.js';
import { commentEventData, messageEventData, messageSentData, reviewEventData } from '../present/inbox-events.js';
import { triggerAutomations } from './automation-run.js';
import { ingestReaction, ingestReceipt } from './ingest-receipts.js';
import { ingestHandover } from './thread-control.js';
import { ingestReferral } from './ingest-referrals.js';
import { storeConversation } from './store-conversation.js';

/*
 * Storing what the platforms report. Every item is keyed by its platform id per account (per
 * conversation for messages), so however often a poll or a push repeats an item, its row is created
 * once, and its event is written in the transaction of that insert: exactly once per item.
 * `message.received` for an incoming message, `message.sent` for the account's own (sent through Herald
 * or elsewhere), `conversation.started` before the first message of a conversation, `comment.received`
 * for an incoming comment (the account's own comments emit nothing), `review.new` for a review and
 * `review.updated` when a review seen before comes back changed.
 */

export interface IngestCounts {
  messages: number;
  comments: number;
  reviews: number;
  /** New mentions of the account (absent when none, as most platforms have none). */
  mentions?: number;
  /** Items that could not be stored and were left out (absent when none). */
  skipped?: number;
}

const iso = (d: Date | null | undefined) => (d && !Number.isNaN(d.getTime()) ? d.toISOString() : null);

export async function ingestMessage(
  ctx: AppContext,
  tx: Executor,
  account: AccountRow,
  m: InboundMessage,
  now: Date,
  /** Collects the new message's id for the caller to add to the analytics once (ingestBatch); absent: added now. */
  analytics?: string[],
): Promise<{ created: boolean; conversation: ConversationRow; message: MessageRow }> {
  const at = now.toISOString();
  const sentAt = iso(m.sentAt) ?? at;
  const participant = m.participant ?? (m.direction === 'incoming' ? m.sender : null);
  const conversation = await storeConversation(
    ctx,
    tx,
    account,
    { platformConversationId: m.conversationId, participant, url: m.conversationUrl ?? null, lastAt: sentAt },
    now,
  );
  const message: MessageRow = {
    message_id: newId(now),
    tenant_id: account.tenant_id,
    account_id: account.account_id,
    conversation_id: conversation.conversation_id,
    platform_message_id: m.messageId,
    direction: m.direction,
    sender_id: m.sender.id,
    sender_name: m.sender.name ?? m.sender.username ?? null,
    text: m.text,
    attachments: JSON.stringify(m.attachments ?? []),
    subject: m.subject ?? null,
    metadata: JSON.stringify(m.extra ?? {}),
    sent_at: sentAt,
    edited_at: null,
    created_at: at,
  };
  const created = await insertMessage(tx, message);
  if (!created) return { created, conversation, message };
  if (analytics) analytics.push(message.message_id);
  else await addInboxAnalytics(tx, [message.message_id]);
  await touchConversation(
    tx,
    conversation.conversation_id,
    { text: m.text, sentAt, incoming: m.direction === 'incoming' },
    at,
  );
  // Incoming: message.received; the account's own (sent through Herald or elsewhere): message.sent.
  await ctx.events.emit(
    tx,
    account.tenant_id,
    m.direction === 'incoming' ? 'message.received' : 'message.sent',
    m.direction === 'incoming'
      ? messageEventData(account, conversation, message, m.sender)
      : messageSentData(account, conversation, message),
    now,
  );
  return { created, conversation, message };
}

export async function ingestComment(
  ctx: AppContext,
  tx: Executor,
  account: AccountRow,
  c: InboundComment,
  now: Date,
): Promise<{ created: boolean; post: InboxPostRow; comment: CommentRow }> {
  const at = now.toISOString();
  const commentedAt = iso(c.createdAt) ?? at;
  const post = await ensureInboxPost(tx, {
    inbox_post_id: newId(now),
    tenant_id: account.tenant_id,
    account_id: account.account_id,
    platform: account.platform,
    platform_post_id: c.postId,
    content: c.post?.content ?? null,
    picture: c.post?.picture ?? null,
    permalink: c.post?.permalink ?? null,
    posted_at: iso(c.post?.postedAt),
    comment_count: 0,
    like_count: 0,
    last_comment_at: commentedAt,
    metadata: JSON.stringify(c.post?.extra ?? {}),
    created_at: at,
  });
  const comment: CommentRow = {
    comment_id: newId(now),
    tenant_id: account.tenant_id,
    account_id: account.account_id,
    inbox_post_id: post.inbox_post_id,
    platform_comment_id: c.commentId,
    parent_platform_id: c.parentId ?? null,
    direction: c.direction,
    author_id: c.author.id,
    author_name: c.author.name ?? null,
    author_username: c.author.username ?? null,
    author_picture: c.author.picture ?? null,
    text: c.text,
    url: c.url ?? null,
    like_count: c.likeCount ?? 0,
    is_hidden: 0,
    is_liked: 0,
    like_uri: null,
    deleted_at: null,
    metadata: JSON.stringify(c.extra ?? {}),
    commented_at: commentedAt,
    created_at: at,
  };
  const created = await insertComment(tx, comment);
  if (!created) return { created, post, comment };
  await countComment(tx, post, commentedAt);
  if (c.direction === 'incoming') {
    await ctx.events.emit(tx, account.tenant_id, 'comment.received', commentEventData(account, post, comment), now);
    await triggerAutomations(tx, account, post, comment, now);
  }
  return { created, post, comment };
}

async function ingestReview(
  ctx: AppContext,
  tx: Executor,
  account: AccountRow,
  r: InboundReview,
  now: Date,
): Promise<boolean> {
  const at = now.toISOString();
  const reply = r.reply
    ? { reply_id: r.reply.id, reply_text: r.reply.text, reply_at: iso(r.reply.createdAt) ?? at }
    : { reply_id: null, reply_text: null, reply_at: null };
  const row: ReviewRow = {
    review_id: newId(now),
    tenant_id: account.tenant_id,
    account_id: account.account_id,
    platform: account.platform,
    platform_review_id: r.reviewId,
    reviewer_id: r.reviewer.id,
    reviewer_name: r.reviewer.name ?? null,
    reviewer_picture: r.reviewer.picture ?? null,
    rating: r.rating,
    text: r.text,
    url: r.url ?? null,
    ...reply,
    metadata: JSON.stringify(r.extra ?? {}),
    reviewed_at: iso(r.createdAt) ?? at,
    created_at: at,
  };
  const created = await insertReview(tx, row);
  if (created) {
    await ctx.events.emit(tx, account.tenant_id, 'review.new', reviewEventData(account, row), now);
    return true;
  }
  // A review changes on the platform (the reviewer edits text or rating; a reply is written or removed
  // elsewhere): the platform is right, and the change is review.updated.
  const existing = await findReview(tx, account.account_id, r.reviewId);
  if (!existing) return false;
  const patch = {
    ...(existing.reply_id !== reply.reply_id ? reply : {}),
    ...(existing.text !== r.text ? { text: r.text } : {}),
    ...(existing.rating !== r.rating ? { rating: r.rating } : {}),
  };
  if (Object.keys(patch).length === 0) return false;
  await updateReview(tx, existing.review_id, patch);
  await ctx.events.emit(
    tx,
    account.tenant_id,
    'review.updated',
    reviewEventData(account, { ...existing, ...patch }),
    now,
  );
  return false;
}

async function ingestMention(tx: Executor, account: AccountRow, m: InboundMention, now: Date): Promise<boolean> {
  const at = now.toISOString();
  return insertMention(tx, {
    mention_id: newId(now),
    tenant_id: account.tenant_id,
    account_id: account.account_id,
    platform: account.platform,
    platform_mention_id: m.mentionId,
    media_id: m.mediaId,
    comment_id: m.commentId ?? null,
    author_id: m.author.id,
    author_name: m.author.name ?? null,
    author_username: m.author.username ?? null,
    author_picture: m.author.picture ?? null,
    text: m.text,
    url: m.url ?? null,
    metadata: JSON.stringify(m.extra ?? {}),
    published_at: iso(m.createdAt) ?? at,
    created_at: at,
  });
}

/**
 * Stores one batch for one account in one transaction; answers how many items were new.
 *
 * What a platform sends is cleaned first, by the rule request input is held to (lib/text.ts): anyone
 * who can message an account writes into it, and one NUL stopped that account's inbox on PostgreSQL.
 * Each item is then stored in a savepoint of its own: an item that still cannot be stored is skipped,
 * logged and counted (`skipped`), and the rest of the batch, and the poll's cursor, go on without it.
 */
export async function ingestBatch(ctx: AppContext, account: AccountRow, batch: InboxBatch): Promise<IngestCounts> {
  const now = ctx.clock.now();
  const clean = cleanTextDeep({
    messages: batch.messages ?? [],
    comments: batch.comments ?? [],
    reviews: batch.reviews ?? [],
    mentions: batch.mentions ?? [],
    receipts: batch.receipts ?? [],
    reactions: batch.reactions ?? [],
    handovers: batch.handovers ?? [],
    referrals: batch.referrals ?? [],
  });
  return ctx.db.transaction(async (tx) => {
    const counts: IngestCounts = { messages: 0, comments: 0, reviews: 0 };
    const each = async (
      kind: 'message' | 'comment' | 'review' | 'mention' | 'receipt' | 'reaction' | 'handover' | 'referral',
      platformId: unknown,
      store: () => Promise<boolean>,
    ) => {
      try {
        return await inSavepoint(tx, store);
      } catch (error) {
        counts.skipped = (counts.skipped ?? 0) + 1;
        ctx.log.warn(
          { err: error, accountId: account.account_id, platform: account.platform, kind, platformId },
          'inbox item skipped: it cannot be stored',
        );
        return false;
      }
    };
    // The new messages go into the analytics sums together, once the batch is stored.
    // (An id whose savepoint was rolled back matches no row there.)
    const created: string[] = [];
    for (const m of clean.messages)
      if (
        await each('message', m.messageId, async () => (await ingestMessage(ctx, tx, account, m, now, created)).created)
      )
        counts.messages++;
    await addInboxAnalytics(tx, created);
    for (const c of clean.comments)
      if (await each('comment', c.commentId, async () => (await ingestComment(ctx, tx, account, c, now)).created))
        counts.comments++;
    for (const r of clean.reviews)
      if (await each('review', r.reviewId, () => ingestReview(ctx, tx, account, r, now))) counts.reviews++;
    for (const m of clean.mentions)
      if (await each('mention', m.mentionId, () => ingestMention(tx, account, m, now)))
        counts.mentions = (counts.mentions ?? 0) + 1;
    // After the messages: a push may carry a message and its receipt together.
    for (const r of clean.receipts)
      await each('receipt', r.conversationId, async () => (await ingestReceipt(ctx, tx, account, r, now)) > 0);
    for (const r of clean.reactions)
      await each('reaction', r.messageId, () => ingestReaction(ctx, tx, account, r, now));
    for (const h of clean.handovers)
      await each('handover', h.conversationId, () => ingestHandover(ctx, tx, account, h, now));
    for (const r of clean.referrals)
      await each('referral', r.conversationId, () => ingestReferral(ctx, tx, account, r, now));
    return counts;
  });
}
