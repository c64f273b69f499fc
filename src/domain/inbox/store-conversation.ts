import type { AppContext } from '../../context.js';
import { newId } from '../../lib/ids.js';
import type { InboxPerson } from '../../platforms/types.js';
import type { AccountRow } from '../../store/accounts.js';
import type { Executor } from '../../store/db.js';
import { ensureConversation, type ConversationRow } from '../../store/inbox/conversations.js';
import { conversationStartedData } from '../present/inbox-events.js';

/**
 * The account's conversation `platformConversationId`, stored now if Herald had none, with
 * `participant` and `lastAt` as its first values; a conversation stored now is announced as
 * `conversation.started` (before whatever the caller announces in it).
 */
export async function storeConversation(
  ctx: AppContext,
  tx: Executor,
  account: AccountRow,
  c: { platformConversationId: string; participant: InboxPerson | null; url: string | null; lastAt: string },
  now: Date,
): Promise<ConversationRow> {
  const at = now.toISOString();
  const offeredId = newId(now);
  const conversation = await ensureConversation(tx, {
    conversation_id: offeredId,
    tenant_id: account.tenant_id,
    account_id: account.account_id,
    platform: account.platform,
    platform_conversation_id: c.platformConversationId,
    participant_id: c.participant?.id ?? null,
    participant_name: c.participant?.name ?? null,
    participant_username: c.participant?.username ?? null,
    participant_picture: c.participant?.picture ?? null,
    url: c.url,
    status: 'active',
    unread_count: 0,
    last_message: null,
    last_message_at: c.lastAt,
    metadata: '{}',
    created_at: at,
    updated_at: at,
  });
  // A row made just now carries the id offered for it: the conversation starts here.
  if (conversation.conversation_id === offeredId)
    await ctx.events.emit(
      tx,
      account.tenant_id,
      'conversation.started',
      conversationStartedData(account, conversation),
      now,
    );
  return conversation;
}
