import { PostgresAdapter, sql } from 'kysely';
import { sqliteIn, sqliteStatement, type Executor } from './db.js';
import { addMessages, POSTGRES_INBOX, SQLITE_INBOX } from './migrations/0345-inbox-analytics-rollups.js';
import { addConversationTotals } from './migrations/0370-inbox-conversation-totals.js';

/*
 * Keeps the inbox analytics sums (migrations 0310, 0345 and 0370) as messages are stored: one call per
 * transaction adds all the messages it created, in a dozen set-based statements, instead of a trigger's
 * work for each row. Deleting or changing a message is kept by the triggers of migrations 0345 and 0370.
 */

const IDS = '__message_ids__';
const statements = (d: typeof SQLITE_INBOX) => [
  ...addMessages(d, `m.message_id in (${IDS})`),
  ...addConversationTotals(d, `m.message_id in (${IDS})`),
];
const sqliteText = statements(SQLITE_INBOX).map((s) => s.replaceAll(IDS, 'select value from json_each(?)'));
const postgresText = statements(POSTGRES_INBOX);

/**
 * Adds messages just inserted in the transaction `db` (by their ids) to the inbox analytics. Call it
 * once per transaction, before it commits, with every message that transaction created and no other.
 */
export async function addInboxAnalytics(db: Executor, messageIds: string[]): Promise<void> {
  if (!messageIds.length) return;
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const raw = postgres ? null : sqliteIn(db);
  const ids = JSON.stringify(messageIds);
  for (const text of postgres ? postgresText : sqliteText) {
    if (raw) {
      // SQLite in a transaction: each statement prepared once (its text does not depend on the batch).
      const params = Array.from({ length: text.split('json_each(?)').length - 1 }, () => ids);
      sqliteStatement(raw, text).run(...params);
      continue;
    }
    const [head, ...rest] = text.split(postgres ? IDS : 'json_each(?)');
    let query = sql.raw(head);
    for (const part of rest)
      query = postgres
        ? sql`${query}select unnest(cast(${messageIds} as text[]))${sql.raw(part)}`
        : sql`${query}json_each(${ids})${sql.raw(part)}`;
    await query.execute(db);
  }
}
