import { sql } from 'kysely';
import type { Executor } from '../db.js';
import type { ConversationRow, MessageRow } from './conversations.js';

/** A message of the conversation by the platform's id or Herald's own (the reaction webhook's). */
export async function findMessageByAnyId(
  db: Executor,
  conversationId: string,
  id: string,
): Promise<MessageRow | undefined> {
  return db
    .selectFrom('inbox_message')
    .selectAll()
    .where('conversation_id', '=', conversationId)
    .where((eb) => eb.or([eb('platform_message_id', '=', id), eb('message_id', '=', id)]))
    .executeTakeFirst();
}

export async function deleteMessageRow(db: Executor, messageId: string): Promise<void> {
  await db.deleteFrom('inbox_message').where('message_id', '=', messageId).execute();
}

export async function updateMessageMetadata(db: Executor, messageId: string, metadata: string): Promise<void> {
  await db.updateTable('inbox_message').set({ metadata }).where('message_id', '=', messageId).execute();
}

/** Sets the conversation's unread count to 0; answers what it was (the messages this marked read). */
export async function markRead(db: Executor, conversationId: string): Promise<number> {
  const row = await db
    .selectFrom('inbox_conversation')
    .select('unread_count')
    .where('conversation_id', '=', conversationId)
    .executeTakeFirst();
  if (!row || row.unread_count === 0) return 0;
  await db
    .updateTable('inbox_conversation')
    .set({ unread_count: 0 })
    .where('conversation_id', '=', conversationId)
    .where('unread_count', '=', row.unread_count)
    .execute();
  return row.unread_count;
}

/** `%`, `_` and the escape character itself, escaped for a LIKE pattern (ESCAPE '\'). */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export type SearchedConversation = ConversationRow & { account_username: string };

/**
 * Conversations of `accountIds` whose messages contain `needle` (case-insensitive), or, unless
 * `direction` is given, whose participant's name or username does; newest match first. The caller
 * refines the text matches (whole words); this narrows the rows the index can.
 */
export async function searchConversations(
  db: Executor,
  q: { tenantId: string; accountIds: string[]; needle: string; direction?: string; limit: number },
): Promise<{ byMessage: Array<MessageRow & { conv: string }>; byContact: SearchedConversation[] }> {
  if (!q.accountIds.length) return { byMessage: [], byContact: [] };
  // The letters that commonly carry accents match any one character (`_`): "zurich" finds "Zürich" (on
  // SQLite, lower() folds ASCII only), and the caller keeps the rows whose words really match.
  const pattern = `%${likeEscape(q.needle.toLowerCase()).replace(/[aeiouycn]/g, '_')}%`;
  let messages = db
    .selectFrom('inbox_message')
    .selectAll()
    .select('conversation_id as conv')
    .where('tenant_id', '=', q.tenantId)
    .where('account_id', 'in', q.accountIds)
    .where(sql<boolean>`lower(text) like ${pattern} escape '\\'`);
  if (q.direction) messages = messages.where('direction', '=', q.direction);
  const byMessage = await messages.orderBy('sent_at', 'desc').limit(q.limit).execute();
  const byContact = q.direction
    ? []
    : await db
        .selectFrom('inbox_conversation as c')
        .innerJoin('account as a', 'a.account_id', 'c.account_id')
        .selectAll('c')
        .select('a.username as account_username')
        .where('c.tenant_id', '=', q.tenantId)
        .where('c.account_id', 'in', q.accountIds)
        .where((eb) =>
          eb.or([
            eb(sql`lower(c.participant_name)`, 'like', sql`${pattern} escape '\\'`),
            eb(sql`lower(c.participant_username)`, 'like', sql`${pattern} escape '\\'`),
            eb(sql`lower(c.participant_id)`, 'like', sql`${pattern} escape '\\'`),
          ]),
        )
        .orderBy('c.last_message_at', 'desc')
        .limit(q.limit)
        .execute();
  return { byMessage, byContact };
}

export async function conversationsByIds(db: Executor, ids: string[]): Promise<SearchedConversation[]> {
  if (!ids.length) return [];
  return db
    .selectFrom('inbox_conversation as c')
    .innerJoin('account as a', 'a.account_id', 'c.account_id')
    .selectAll('c')
    .select('a.username as account_username')
    .where('c.conversation_id', 'in', ids)
    .execute();
}
