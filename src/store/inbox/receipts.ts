import type { Executor } from '../db.js';
import type { MessageRow } from './conversations.js';

/**
 * Marks the account's own messages of a conversation delivered (or read) at `at`: those sent at or
 * before `watermark` (ISO time) and those named in `platformIds`, that were not marked yet. Answers
 * the rows it marked. One UPDATE ... RETURNING: on PostgreSQL a concurrent copy of the same receipt
 * waits on the rows' locks, then finds them marked and returns nothing, so each row is marked, and
 * announced, once.
 */
export async function markReceipt(
  db: Executor,
  conversationId: string,
  status: 'delivered' | 'read',
  watermark: string,
  platformIds: string[],
  at: string,
): Promise<MessageRow[]> {
  const column = status === 'delivered' ? 'delivered_at' : 'read_at';
  return db
    .updateTable('inbox_message')
    .set({ [column]: at })
    .where('conversation_id', '=', conversationId)
    .where('direction', '=', 'outgoing')
    .where(column, 'is', null)
    .where((eb) =>
      platformIds.length
        ? eb.or([eb('sent_at', '<=', watermark), eb('platform_message_id', 'in', platformIds)])
        : eb('sent_at', '<=', watermark),
    )
    .returningAll()
    .execute();
}

/**
 * Replaces a message's metadata (Herald's JSON text) only if it is still `expected`: false when another
 * writer changed it first (the caller re-reads and decides again).
 */
export async function swapMessageMetadata(
  db: Executor,
  messageId: string,
  expected: string,
  metadata: string,
): Promise<boolean> {
  const res = await db
    .updateTable('inbox_message')
    .set({ metadata })
    .where('message_id', '=', messageId)
    .where('metadata', '=', expected)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
