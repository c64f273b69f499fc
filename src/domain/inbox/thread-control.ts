import type { AppContext } from '../../context.js';
import type { InboundHandover } from '../../platforms/types.js';
import type { AccountRow } from '../../store/accounts.js';
import type { Executor } from '../../store/db.js';
import { findConversation, swapConversationMetadata } from '../../store/inbox/conversations.js';
import { controlChangedData } from '../present/inbox-events.js';

/*
 * Who answers a conversation (Messenger's handover protocol), kept in the conversation's metadata:
 * `threadControl` the owner, `threadControlAt` when that owner took it. Two writers: Herald's own
 * thread-control route, and the platform's pushes of handovers made elsewhere (`messaging_handovers`: a
 * person in the Page Inbox passing the thread back, another app taking it). Each change of owner writes
 * `conversation.control_changed` in its transaction.
 */

export type ControlOwner = 'app' | 'ai_agent' | 'other';

/**
 * Stores `owner` as the thread's owner since `at` and, when that changed the owner, emits
 * `conversation.control_changed` with the owner it replaced (null before the first change Herald knew
 * of). A change no newer than the stored one (a push delivered twice, or late) changes nothing, so it is
 * announced once. Answers whether it changed the owner.
 */
export async function storeThreadControl(
  ctx: AppContext,
  tx: Executor,
  account: AccountRow,
  platformConversationId: string,
  change: { owner: ControlOwner; note: string | undefined; at: Date },
  now: Date,
): Promise<boolean> {
  const at = change.at.toISOString();
  // Compare and swap: a concurrent change of the same thread makes the loser re-read the owner, so each
  // event's previousOwner is the owner its change replaced.
  for (;;) {
    const row = await findConversation(tx, account.account_id, platformConversationId);
    if (!row) return false; // never stored, or gone meanwhile: no owner to change
    const metadata = JSON.parse(row.metadata) as { threadControl?: ControlOwner; threadControlAt?: string };
    const previousOwner = metadata.threadControl ?? null;
    if (metadata.threadControlAt && metadata.threadControlAt >= at) return false;
    if (previousOwner === change.owner) return false;
    const next = JSON.stringify({ ...metadata, threadControl: change.owner, threadControlAt: at });
    if (!(await swapConversationMetadata(tx, row.conversation_id, row.metadata, next, now.toISOString()))) continue;
    await ctx.events.emit(
      tx,
      account.tenant_id,
      'conversation.control_changed',
      controlChangedData(account, row, { owner: change.owner, previousOwner, metadata: change.note }, at),
      now,
    );
    return true;
  }
}

/** A handover the platform pushed (the thread passed to this app, or taken from it). */
export function ingestHandover(
  ctx: AppContext,
  tx: Executor,
  account: AccountRow,
  h: InboundHandover,
  now: Date,
): Promise<boolean> {
  if (Number.isNaN(h.at.getTime())) return Promise.resolve(false);
  return storeThreadControl(
    ctx,
    tx,
    account,
    h.conversationId,
    { owner: h.owner, note: h.note ?? undefined, at: h.at },
    now,
  );
}
