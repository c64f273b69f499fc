import type { AppContext } from '../../context.js';
import type { InboundReaction, InboundReceipt } from '../../platforms/types.js';
import type { AccountRow } from '../../store/accounts.js';
import type { Executor } from '../../store/db.js';
import { findConversation } from '../../store/inbox/conversations.js';
import { findMessageByAnyId } from '../../store/inbox/message-actions.js';
import { markReceipt, swapMessageMetadata } from '../../store/inbox/receipts.js';
import { deliveryStatusData, reactionEventData } from '../present/inbox-events.js';

/*
 * What the platform says happened to stored messages (Messenger and Instagram push these; no poll finds
 * them):
 * - a receipt marks the account's messages of the conversation delivered or read and writes one
 *   `message.delivered` / `message.read` per message it newly marked;
 * - a reaction to a stored message is kept on the message (metadata `reaction`: the account's own, as
 *   the reactions route keeps it; `participantReaction`: the person's) and written as `reaction.received`
 *   (action `added` or `removed`).
 * The stored state is the guard: a receipt or reaction pushed twice finds its change made and writes
 * nothing. One for a conversation or message Herald never stored is dropped (nothing to mark, no state
 * to guard a second copy with).
 */

/** Stores one receipt; answers how many messages it marked. */
export async function ingestReceipt(
  ctx: AppContext,
  tx: Executor,
  account: AccountRow,
  r: InboundReceipt,
  now: Date,
): Promise<number> {
  const conversation = await findConversation(tx, account.account_id, r.conversationId);
  if (!conversation) return 0;
  const watermark = await receiptWatermark(tx, conversation.conversation_id, r);
  if (!watermark) return 0;
  const at = now.toISOString();
  const marked = await markReceipt(tx, conversation.conversation_id, r.status, watermark, r.messageIds ?? [], at);
  // Oldest first: the order the messages were sent.
  marked.sort((a, b) => a.sent_at.localeCompare(b.sent_at) || a.message_id.localeCompare(b.message_id));
  for (const message of marked)
    await ctx.events.emit(
      tx,
      account.tenant_id,
      r.status === 'delivered' ? 'message.delivered' : 'message.read',
      deliveryStatusData(account, conversation, message, at),
      now,
    );
  return marked.length;
}

/**
 * The time up to which a receipt covers the account's messages (ISO): its watermark, or else the time
 * the message it names as the last one seen was sent (Instagram's `read.mid`). Null when neither is
 * known (a bad watermark, a message Herald never stored): the receipt then marks nothing.
 */
async function receiptWatermark(tx: Executor, conversationId: string, r: InboundReceipt): Promise<string | null> {
  if (r.watermark) return Number.isNaN(r.watermark.getTime()) ? null : r.watermark.toISOString();
  if (!r.upToMessageId) return null;
  return (await findMessageByAnyId(tx, conversationId, r.upToMessageId))?.sent_at ?? null;
}

/** Stores one reaction; answers whether it changed anything (and was announced). */
export async function ingestReaction(
  ctx: AppContext,
  tx: Executor,
  account: AccountRow,
  r: InboundReaction,
  now: Date,
): Promise<boolean> {
  const conversation = await findConversation(tx, account.account_id, r.conversationId);
  if (!conversation) return false;
  const key = r.fromAccount ? 'reaction' : 'participantReaction';
  // A compare-and-swap on the metadata: a concurrent writer (the reactions route, a second copy of this
  // push) makes this one re-read and decide again.
  for (;;) {
    const message = await findMessageByAnyId(tx, conversation.conversation_id, r.messageId);
    if (!message) return false;
    const metadata = JSON.parse(message.metadata) as Record<string, unknown>;
    const stored = typeof metadata[key] === 'string' ? (metadata[key] as string) : null;
    if (r.action === 'added' ? stored === r.emoji || !r.emoji : stored === null) return false;
    // Meta may leave out which emoji an unreact removed: it is the one stored.
    const emoji = r.action === 'added' ? r.emoji : r.emoji || (stored ?? '');
    if (r.action === 'added') metadata[key] = r.emoji;
    else delete metadata[key];
    if (!(await swapMessageMetadata(tx, message.message_id, message.metadata, JSON.stringify(metadata)))) continue;
    await ctx.events.emit(
      tx,
      account.tenant_id,
      'reaction.received',
      reactionEventData(account, conversation, message, {
        emoji,
        action: r.action,
        sender: r.sender,
        reactedAt: Number.isNaN(r.reactedAt.getTime()) ? now.toISOString() : r.reactedAt.toISOString(),
      }),
      now,
    );
    return true;
  }
}
