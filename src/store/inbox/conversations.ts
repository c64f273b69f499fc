import type { Executor } from '../db.js';
import type { InboxConversationTable, InboxMessageTable } from '../schema.js';
import { keysetPage, type KeysetPosition } from './keyset.js';

export type ConversationRow = InboxConversationTable;
export type MessageRow = InboxMessageTable;
export type ListedConversation = ConversationRow & { account_username: string };

export async function findConversation(
  db: Executor,
  accountId: string,
  platformConversationId: string,
): Promise<ConversationRow | undefined> {
  return db
    .selectFrom('inbox_conversation')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('platform_conversation_id', '=', platformConversationId)
    .executeTakeFirst();
}

/** Creates the conversation unless it exists; answers the row either way. */
export async function ensureConversation(db: Executor, row: ConversationRow): Promise<ConversationRow> {
  await db
    .insertInto('inbox_conversation')
    .values(row)
    // A later sighting fills in what the first did not know (a push names only the sender's id; a poll
    // brings the username), never overwriting what is stored.
    .onConflict((oc) =>
      oc.columns(['account_id', 'platform_conversation_id']).doUpdateSet((eb) => ({
        participant_name: eb.fn.coalesce('inbox_conversation.participant_name', eb.ref('excluded.participant_name')),
        participant_username: eb.fn.coalesce(
          'inbox_conversation.participant_username',
          eb.ref('excluded.participant_username'),
        ),
        participant_picture: eb.fn.coalesce(
          'inbox_conversation.participant_picture',
          eb.ref('excluded.participant_picture'),
        ),
        url: eb.fn.coalesce('inbox_conversation.url', eb.ref('excluded.url')),
      })),
    )
    .execute();
  return (await findConversation(db, row.account_id, row.platform_conversation_id))!;
}

/** After a message: the newest message's text and time move the conversation up (never back). */
export async function touchConversation(
  db: Executor,
  conversationId: string,
  message: { text: string | null; sentAt: string; incoming: boolean },
  now: string,
): Promise<void> {
  const row = await db
    .selectFrom('inbox_conversation')
    .select(['last_message_at', 'unread_count'])
    .where('conversation_id', '=', conversationId)
    .executeTakeFirst();
  if (!row) return;
  const newer = message.sentAt >= row.last_message_at;
  await db
    .updateTable('inbox_conversation')
    .set({
      ...(newer ? { last_message: message.text, last_message_at: message.sentAt } : {}),
      unread_count: row.unread_count + (message.incoming ? 1 : 0),
      updated_at: now,
    })
    .where('conversation_id', '=', conversationId)
    .execute();
}

export async function setConversationStatus(
  db: Executor,
  conversationId: string,
  status: string,
  now: string,
): Promise<void> {
  await db
    .updateTable('inbox_conversation')
    .set({ status, updated_at: now })
    .where('conversation_id', '=', conversationId)
    .execute();
}

/**
 * Replaces the conversation's metadata (Herald's JSON text) only if it is still `expected`: true when
 * it did, false when another writer changed it first (the caller re-reads and decides again).
 */
export async function swapConversationMetadata(
  db: Executor,
  conversationId: string,
  expected: string,
  metadata: string,
  now: string,
): Promise<boolean> {
  const res = await db
    .updateTable('inbox_conversation')
    .set({ metadata, updated_at: now })
    .where('conversation_id', '=', conversationId)
    .where('metadata', '=', expected)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export interface ConversationFilter {
  tenantId: string;
  accountIds: string[];
  status?: string;
  order: 'asc' | 'desc';
  after: KeysetPosition | null;
  limit: number;
}

export async function listConversations(db: Executor, f: ConversationFilter): Promise<ListedConversation[]> {
  if (f.accountIds.length === 0) return [];
  let q = db
    .selectFrom('inbox_conversation')
    .innerJoin('account', 'account.account_id', 'inbox_conversation.account_id')
    .selectAll('inbox_conversation')
    .select('account.username as account_username')
    .where('inbox_conversation.tenant_id', '=', f.tenantId)
    .where('inbox_conversation.account_id', 'in', f.accountIds);
  if (f.status) q = q.where('inbox_conversation.status', '=', f.status);
  return keysetPage(
    q,
    'inbox_conversation.last_message_at',
    'inbox_conversation.conversation_id',
    f.order,
    f.after,
    f.limit,
  ).execute();
}

/**
 * Inserts a message unless the conversation has it already: true when this call created it.
 * NOTE: the transaction must add the messages it created to the analytics before it commits
 * (`addInboxAnalytics`, store/inbox-analytics-keep.ts): no trigger does it.
 */
export async function insertMessage(db: Executor, row: MessageRow): Promise<boolean> {
  const res = await db
    .insertInto('inbox_message')
    .values(row)
    .onConflict((oc) => oc.columns(['conversation_id', 'platform_message_id']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export async function findMessage(
  db: Executor,
  conversationId: string,
  platformMessageId: string,
): Promise<MessageRow | undefined> {
  return db
    .selectFrom('inbox_message')
    .selectAll()
    .where('conversation_id', '=', conversationId)
    .where('platform_message_id', '=', platformMessageId)
    .executeTakeFirst();
}

export async function updateMessageText(
  db: Executor,
  messageId: string,
  text: string | null,
  now: string,
): Promise<void> {
  await db.updateTable('inbox_message').set({ text, edited_at: now }).where('message_id', '=', messageId).execute();
}

export async function listMessages(
  db: Executor,
  f: { conversationId: string; order: 'asc' | 'desc'; after: KeysetPosition | null; limit: number },
): Promise<MessageRow[]> {
  const q = db.selectFrom('inbox_message').selectAll().where('conversation_id', '=', f.conversationId);
  return keysetPage(q, 'sent_at', 'message_id', f.order, f.after, f.limit).execute();
}

/** The newest incoming message's time (Messenger's 24-hour window). */
export async function lastIncomingAt(db: Executor, conversationId: string): Promise<string | null> {
  const row = await db
    .selectFrom('inbox_message')
    .select('sent_at')
    .where('conversation_id', '=', conversationId)
    .where('direction', '=', 'incoming')
    .orderBy('sent_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.sent_at ?? null;
}

export async function markConversationRead(db: Executor, conversationId: string): Promise<void> {
  await db
    .updateTable('inbox_conversation')
    .set({ unread_count: 0 })
    .where('conversation_id', '=', conversationId)
    .execute();
}
