import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { ANY_SOURCE, POSTGRES_INBOX, SQLITE_INBOX } from './0345-inbox-analytics-rollups.js';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * The inbox conversation analytics sorted by a count (issue #33): to sort by messages in a range, the
 * listing computed the count of every conversation active in the range (100,000 at a million messages)
 * before it could take a page. This migration adds `inbox_conversation_total`: per tenant, conversation
 * and source (and `all`, every source together), the conversation's messages of all time, received and
 * sent, with an index per count in that order. A conversation's count in a range is never more than its
 * count of all time, so the listing by a count (descending) walks the conversations in the order of
 * their all-time count and stops as soon as the next one cannot beat the page's last
 * (store/inbox-analytics-count-sort.ts).
 *
 * The row's account is its conversation's (the smallest of its messages', as `inbox_conversation_day`).
 * `first_day` and `last_day` bound the days of its messages, so the walk skips in the index the
 * conversations with no message in a range. They only widen: a deleted message leaves them as they
 * were (a bound still, and deleting is rare). A row whose count falls to zero goes: a conversation has a
 * row for a source exactly when it has a message of that source. The store's insert path adds new messages (`addConversationTotals`, with the
 * statements of migration 0345); deleting or changing a message goes through the triggers here.
 */

const ICT = 'inbox_conversation_total';
const KEY = 'tenant_id, conversation_id, source';

/** The dialect's pieces of text this migration uses (migration 0345's). */
type InboxDialect = typeof SQLITE_INBOX;

const incoming = (r: string, yes: string, no: string) =>
  `case when ${r}.direction = 'incoming' then ${yes} else ${no} end`;

const day = (r: string) => `substr(${r}.sent_at, 1, 10)`;

const upsert = (d: InboxDialect, rows: string) =>
  `insert into ${ICT} (${KEY}, account_id, received, sent, total, first_day, last_day) ${rows}
   on conflict (${KEY}) do update set received = ${ICT}.received + excluded.received,
     sent = ${ICT}.sent + excluded.sent, total = ${ICT}.total + excluded.total,
     first_day = ${d.least}(${ICT}.first_day, excluded.first_day), last_day = ${d.greatest}(${ICT}.last_day, excluded.last_day)`;

/**
 * Adds the messages `m` that `where` selects (inserted in this transaction, not counted yet) to the
 * totals, per source and for all sources: one set-based statement whatever the batch's size, which
 * reads the batch once (each message's source read from its metadata's JSON once).
 */
export function addConversationTotals(d: InboxDialect, where: string): string[] {
  const totals = (source: string, group: string) =>
    `select m.tenant_id, m.conversation_id, ${source} as source, min(m.account_id) as account_id,
       sum(${incoming('m', '1', '0')}) as received, sum(${incoming('m', '0', '1')}) as sent, count(*) as total,
       min(${day('m')}) as first_day, max(${day('m')}) as last_day
     from batch m group by m.tenant_id, m.conversation_id${group}`;
  return [
    `with batch as materialized (select m.tenant_id, m.account_id, m.conversation_id, m.direction, m.sent_at,
         ${d.source('m')} as source from inbox_message m where ${where})
     ${upsert(
       d,
       `select * from (${totals('m.source', ', m.source')} union all ${totals(`'${ANY_SOURCE}'`, '')}) t where true`,
     )}`,
  ];
}

/** One message row `r` (NEW) added, in a trigger. */
function added(d: InboxDialect, r: string): string[] {
  return [d.source(r), `'${ANY_SOURCE}'`].map((source) =>
    upsert(
      d,
      `values (${r}.tenant_id, ${r}.conversation_id, ${source}, ${r}.account_id,
       ${incoming(r, '1', '0')}, ${incoming(r, '0', '1')}, 1, ${day(r)}, ${day(r)})`,
    ),
  );
}

/** One message row `r` (OLD) gone, in a trigger: its totals lose it, a total left at zero goes. */
function removed(d: InboxDialect, r: string): string[] {
  const rows = `tenant_id = ${r}.tenant_id and conversation_id = ${r}.conversation_id
    and source in (${d.source(r)}, '${ANY_SOURCE}')`;
  return [
    `update ${ICT} set received = received - ${incoming(r, '1', '0')}, sent = sent - ${incoming(r, '0', '1')},
       total = total - 1 where ${rows}`,
    `delete from ${ICT} where ${rows} and total <= 0`,
  ];
}

/** Migration 0345's: the changes that move a message from one sum to another. */
const WATCHED = ['tenant_id', 'account_id', 'conversation_id', 'direction', 'metadata', 'sent_at'];

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const d = postgres ? POSTGRES_INBOX : SQLITE_INBOX;

  await db.schema
    .createTable(ICT)
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('received', 'bigint', (c) => c.notNull())
    .addColumn('sent', 'bigint', (c) => c.notNull())
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addColumn('first_day', 'text', (c) => c.notNull())
    .addColumn('last_day', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('inbox_conversation_total_pk', ['tenant_id', 'conversation_id', 'source'])
    .execute();
  // One walk per count, in either direction; the account and days after the key, so the filters by
  // account and range read the index only.
  for (const count of ['total', 'received', 'sent'])
    await db.schema
      .createIndex(`${ICT}_${count}_idx`)
      .on(ICT)
      .columns(['tenant_id', 'source', count, 'conversation_id', 'account_id', 'first_day', 'last_day'])
      .execute();

  // The messages stored before: the sums of their days (every source, and `all`).
  await sql
    .raw(
      `insert into ${ICT} (${KEY}, account_id, received, sent, total, first_day, last_day)
       select tenant_id, conversation_id, source, min(account_id), sum(received), sum(sent), sum(received) + sum(sent),
         min(day), max(day)
       from inbox_conversation_day group by tenant_id, conversation_id, source`,
    )
    .execute(db);

  if (postgres) {
    await sql
      .raw(
        `create function inbox_conversation_total_change() returns trigger language plpgsql as $$
         begin
           ${removed(d, 'OLD').join(';\n')};
           if tg_op = 'UPDATE' then
             ${added(d, 'NEW').join(';\n')};
           end if;
           return null;
         end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger inbox_conversation_total_change after delete or update of ${WATCHED.join(', ')} on inbox_message
         for each row execute function inbox_conversation_total_change()`,
      )
      .execute(db);
    return;
  }
  const body = (statements: string[]) => statements.map((s) => `${s};`).join('\n');
  await sql
    .raw(
      `create trigger inbox_conversation_total_delete after delete on inbox_message begin ${body(removed(d, 'OLD'))} end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger inbox_conversation_total_update after update of ${WATCHED.join(', ')} on inbox_message
       begin ${body([...removed(d, 'OLD'), ...added(d, 'NEW')])} end`,
    )
    .execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
