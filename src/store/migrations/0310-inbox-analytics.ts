import { PostgresAdapter, sql, type CreateTableBuilder, type Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * The inbox analytics (GET /v1/analytics/inbox/*) read sums kept beside the messages, so that a year of
 * a tenant's inbox is a few thousand rows whatever the number of messages:
 *
 * - `inbox_volume_day`: messages per tenant, UTC day, account, source and direction, with one column per
 *   UTC hour of the day (`h00`..`h23`), for the volume series and the day x hour heatmap;
 * - `inbox_conversation_day`: per conversation, day and source, the messages received and sent and the
 *   first and last message's time (unique conversations, the conversation listing);
 * - `inbox_reply`: one row per reply, an outgoing message that follows at least one incoming message
 *   since the conversation's previous outgoing one: the time from the first of those incoming messages
 *   to the reply, in whole seconds (time to first response);
 * - `inbox_reply_day`: the replies per tenant, day of the reply, account and `bucket` of their seconds
 *   (the seconds themselves below 1,000, then rounded down to three significant digits), with their
 *   count, sum, minimum and maximum: the response-time statistics read these.
 *
 * A message's source is its metadata's `source` when it is one of the hosted API's lineage names
 * (Herald marks the messages sent through its API `api`), else `platform`.
 *
 * Triggers on inbox_message keep them on every write path (a sync, a send, a deleted message, an account
 * whose messages go by cascade), on SQLite and PostgreSQL alike, so no code has to remember them. A
 * message that arrives late (a sync that brings an older incoming message) recomputes the reply after it.
 */

export const INBOX_SOURCES = [
  'human',
  'workflow',
  'sequence',
  'broadcast',
  'comment_automation',
  'api',
  'contact',
  'platform',
] as const;

const HOURS = Array.from({ length: 24 }, (_, h) => `h${String(h).padStart(2, '0')}`);
const KNOWN = INBOX_SOURCES.map((s) => `'${s}'`).join(', ');

interface Dialect {
  /** The source of message row `r` (NEW, OLD or a table alias). */
  source(r: string): string;
  /** Whole seconds from ISO instant `a` to `b`. */
  seconds(a: string, b: string): string;
  least: string;
  greatest: string;
}

const SQLITE: Dialect = {
  source: (r) =>
    `coalesce((select s from (select case when json_valid(${r}.metadata) then json_extract(${r}.metadata, '$.source') end as s) where s in (${KNOWN})), 'platform')`,
  seconds: (a, b) => `cast(round((julianday(${b}) - julianday(${a})) * 86400) as integer)`,
  least: 'min',
  greatest: 'max',
};

const POSTGRES: Dialect = {
  source: (r) => `inbox_message_source(${r}.metadata)`,
  seconds: (a, b) =>
    `cast(round(extract(epoch from (cast(${b} as timestamptz) - cast(${a} as timestamptz)))) as bigint)`,
  least: 'least',
  greatest: 'greatest',
};

const day = (r: string) => `substr(${r}.sent_at, 1, 10)`;
const hourShare = (r: string, h: string) => `case when substr(${r}.sent_at, 12, 2) = '${h.slice(1)}' then 1 else 0 end`;

function volume(d: Dialect, r: string, sign: 1 | -1): string[] {
  const s = (e: string) => (sign < 0 ? `-(${e})` : e);
  const keys = ['tenant_id', 'day', 'account_id', 'source', 'direction'];
  return [
    `insert into inbox_volume_day (${keys.join(', ')}, messages, ${HOURS.join(', ')})
     values (${r}.tenant_id, ${day(r)}, ${r}.account_id, ${d.source(r)}, ${r}.direction, ${s('1')},
       ${HOURS.map((h) => s(hourShare(r, h))).join(', ')})
     on conflict (${keys.join(', ')}) do update set messages = inbox_volume_day.messages + excluded.messages,
       ${HOURS.map((h) => `${h} = inbox_volume_day.${h} + excluded.${h}`).join(', ')}`,
    ...(sign < 0
      ? [
          `delete from inbox_volume_day where tenant_id = ${r}.tenant_id and day = ${day(r)} and account_id = ${r}.account_id
           and source = ${d.source(r)} and direction = ${r}.direction and messages <= 0`,
        ]
      : []),
  ];
}

function conversationDay(d: Dialect, r: string, sign: 1 | -1): string[] {
  const keys = ['tenant_id', 'day', 'conversation_id', 'source'];
  if (sign > 0) {
    return [
      `insert into inbox_conversation_day (${keys.join(', ')}, account_id, received, sent, first_at, last_at)
       values (${r}.tenant_id, ${day(r)}, ${r}.conversation_id, ${d.source(r)}, ${r}.account_id,
         case when ${r}.direction = 'incoming' then 1 else 0 end, case when ${r}.direction = 'incoming' then 0 else 1 end,
         ${r}.sent_at, ${r}.sent_at)
       on conflict (${keys.join(', ')}) do update set received = inbox_conversation_day.received + excluded.received,
         sent = inbox_conversation_day.sent + excluded.sent,
         first_at = ${d.least}(inbox_conversation_day.first_at, excluded.first_at),
         last_at = ${d.greatest}(inbox_conversation_day.last_at, excluded.last_at)`,
    ];
  }
  const where = `tenant_id = ${r}.tenant_id and day = ${day(r)} and conversation_id = ${r}.conversation_id and source = ${d.source(r)}`;
  // The first and last message of the day and source, read again from the messages left (a few rows).
  const remaining = (agg: string) =>
    `(select ${agg}(m.sent_at) from inbox_message m where m.conversation_id = ${r}.conversation_id
       and m.sent_at >= ${day(r)} and m.sent_at < ${day(r)} || 'T24' and ${d.source('m')} = ${d.source(r)})`;
  return [
    `update inbox_conversation_day set
       received = received - case when ${r}.direction = 'incoming' then 1 else 0 end,
       sent = sent - case when ${r}.direction = 'incoming' then 0 else 1 end,
       first_at = coalesce(${remaining('min')}, first_at), last_at = coalesce(${remaining('max')}, last_at)
     where ${where}`,
    `delete from inbox_conversation_day where ${where} and received + sent <= 0`,
  ];
}

/** The reply of outgoing message `id` (an SQL expression), computed again from the conversation's messages. */
function reply(d: Dialect, id: string): string[] {
  return [`delete from inbox_reply where message_id = ${id}`, replyInsert(d, `o.message_id = ${id}`)];
}

/** Inserts the reply of each outgoing message `o` that `where` selects and that has one. */
function replyInsert(d: Dialect, where: string): string {
  const firstIn = `(select min(i.sent_at) from inbox_message i where i.conversation_id = o.conversation_id
      and i.direction = 'incoming' and i.sent_at <= o.sent_at
      and i.sent_at > coalesce((select max(p.sent_at) from inbox_message p where p.conversation_id = o.conversation_id
        and p.direction = 'outgoing' and p.sent_at < o.sent_at), ''))`;
  const secs = d.seconds('q.received_at', 'q.replied_at');
  return `insert into inbox_reply (message_id, tenant_id, account_id, conversation_id, day, replied_at, received_at, seconds, bucket)
     select r.message_id, r.tenant_id, r.account_id, r.conversation_id, substr(r.replied_at, 1, 10), r.replied_at, r.received_at,
       r.secs, ${bucket('r.secs')}
     from (select q.*, case when ${secs} < 0 then 0 else ${secs} end as secs
       from (select o.message_id, o.tenant_id, o.account_id, o.conversation_id, o.sent_at as replied_at, ${firstIn} as received_at
         from inbox_message o where ${where} and o.direction = 'outgoing') q
       where q.received_at is not null) r`;
}

/** The first outgoing message after row `r` in its conversation: its reply may have changed. */
const nextOutgoing = (r: string) =>
  `(select n.message_id from inbox_message n where n.conversation_id = ${r}.conversation_id and n.direction = 'outgoing'
     and n.sent_at > ${r}.sent_at order by n.sent_at, n.message_id limit 1)`;

/** Three significant digits of `s` seconds (exact below 1,000). */
function bucket(s: string): string {
  const steps = [1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000];
  return `case when ${s} < 1000 then ${s} ${steps
    .slice(1)
    .map((top, i) => `when ${s} < ${top} then ${s} / ${10 ** (i + 1)} * ${10 ** (i + 1)}`)
    .join(' ')} else ${s} / 100000 * 100000 end`;
}

function removed(d: Dialect, r: string): string[] {
  return [
    ...volume(d, r, -1),
    ...conversationDay(d, r, -1),
    `delete from inbox_reply where message_id = ${r}.message_id`,
    ...reply(d, nextOutgoing(r)),
  ];
}

function added(d: Dialect, r: string): string[] {
  return [
    ...volume(d, r, 1),
    ...conversationDay(d, r, 1),
    ...reply(d, `${r}.message_id`),
    ...reply(d, nextOutgoing(r)),
  ];
}

const REPLY_KEY = 'tenant_id, day, account_id, bucket';

function replyAdded(d: Dialect, r: string): string {
  return `insert into inbox_reply_day (${REPLY_KEY}, replies, seconds_sum, min_seconds, max_seconds)
    values (${r}.tenant_id, ${r}.day, ${r}.account_id, ${r}.bucket, 1, ${r}.seconds, ${r}.seconds, ${r}.seconds)
    on conflict (${REPLY_KEY}) do update set replies = inbox_reply_day.replies + 1,
      seconds_sum = inbox_reply_day.seconds_sum + excluded.seconds_sum,
      min_seconds = ${d.least}(inbox_reply_day.min_seconds, excluded.min_seconds),
      max_seconds = ${d.greatest}(inbox_reply_day.max_seconds, excluded.max_seconds)`;
}

function replyRemoved(r: string): string[] {
  const where = `tenant_id = ${r}.tenant_id and day = ${r}.day and account_id = ${r}.account_id and bucket = ${r}.bucket`;
  const left = (agg: string) =>
    `(select ${agg}(x.seconds) from inbox_reply x where x.account_id = ${r}.account_id and x.day = ${r}.day and x.bucket = ${r}.bucket)`;
  return [
    `update inbox_reply_day set replies = replies - 1, seconds_sum = seconds_sum - ${r}.seconds,
       min_seconds = coalesce(${left('min')}, min_seconds), max_seconds = coalesce(${left('max')}, max_seconds)
     where ${where}`,
    `delete from inbox_reply_day where ${where} and replies <= 0`,
  ];
}

const WATCHED = ['tenant_id', 'account_id', 'conversation_id', 'direction', 'metadata', 'sent_at'];

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const d = postgres ? POSTGRES : SQLITE;
  const rowOrder = <T extends string>(t: CreateTableBuilder<T, never>) =>
    postgres ? t : t.modifyEnd(sql`without rowid`);

  let volumeTable = db.schema
    .createTable('inbox_volume_day')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('messages', 'bigint', (c) => c.notNull().defaultTo(0));
  for (const h of HOURS) volumeTable = volumeTable.addColumn(h, 'bigint', (c) => c.notNull().defaultTo(0));
  // Tenant and day first: every read is one tenant's days in a range (WITHOUT ROWID keeps them in order).
  await rowOrder(
    volumeTable.addPrimaryKeyConstraint('inbox_volume_day_pk', [
      'tenant_id',
      'day',
      'account_id',
      'source',
      'direction',
    ]),
  ).execute();

  await rowOrder(
    db.schema
      .createTable('inbox_conversation_day')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('conversation_id', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('received', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('sent', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('first_at', 'text', (c) => c.notNull())
      .addColumn('last_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('inbox_conversation_day_pk', ['tenant_id', 'day', 'conversation_id', 'source']),
  ).execute();
  // One conversation's days (its analytics drawer).
  await db.schema
    .createIndex('inbox_conversation_day_conversation_idx')
    .on('inbox_conversation_day')
    .columns(['conversation_id', 'day'])
    .execute();

  await db.schema
    .createTable('inbox_reply')
    .addColumn('message_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('replied_at', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('seconds', 'bigint', (c) => c.notNull())
    .addColumn('bucket', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('inbox_reply_bucket_idx')
    .on('inbox_reply')
    .columns(['account_id', 'day', 'bucket', 'seconds'])
    .execute();

  await rowOrder(
    db.schema
      .createTable('inbox_reply_day')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('bucket', 'bigint', (c) => c.notNull())
      .addColumn('replies', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('seconds_sum', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('min_seconds', 'bigint', (c) => c.notNull())
      .addColumn('max_seconds', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('inbox_reply_day_pk', ['tenant_id', 'day', 'account_id', 'bucket']),
  ).execute();

  // The reply lookups (the previous outgoing message, the first incoming one after it, the next
  // outgoing one) each become one index probe, however long the conversation.
  await db.schema
    .createIndex('inbox_message_direction_idx')
    .on('inbox_message')
    .columns(['conversation_id', 'direction', 'sent_at'])
    .execute();

  if (postgres) {
    await sql
      .raw(
        `create function inbox_message_source(metadata text) returns text language plpgsql immutable as $$
         declare s text;
         begin
           s := cast(metadata as jsonb) ->> 'source';
           if s in (${KNOWN}) then return s; end if;
           return 'platform';
         exception when others then return 'platform';
         end $$`,
      )
      .execute(db);
  }

  await rebuildInboxAnalytics(db, d);

  if (postgres) {
    await sql
      .raw(
        `create function inbox_analytics_keep() returns trigger language plpgsql as $$
         begin
           if tg_op <> 'INSERT' then
             ${removed(d, 'OLD').join(';\n')};
           end if;
           if tg_op <> 'DELETE' then
             ${added(d, 'NEW').join(';\n')};
           end if;
           return null;
         end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger inbox_analytics_keep after insert or delete or update of ${WATCHED.join(', ')} on inbox_message
         for each row execute function inbox_analytics_keep()`,
      )
      .execute(db);
    await sql
      .raw(
        `create function inbox_reply_keep() returns trigger language plpgsql as $$
         begin
           if tg_op = 'DELETE' then
             ${replyRemoved('OLD').join(';\n')};
           else
             ${replyAdded(d, 'NEW')};
           end if;
           return null;
         end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger inbox_reply_keep after insert or delete on inbox_reply for each row execute function inbox_reply_keep()`,
      )
      .execute(db);
    return;
  }
  const body = (statements: string[]) => statements.map((s) => `${s};`).join('\n');
  await sql
    .raw(`create trigger inbox_analytics_insert after insert on inbox_message begin ${body(added(d, 'NEW'))} end`)
    .execute(db);
  await sql
    .raw(`create trigger inbox_analytics_delete after delete on inbox_message begin ${body(removed(d, 'OLD'))} end`)
    .execute(db);
  await sql
    .raw(
      `create trigger inbox_analytics_update after update of ${WATCHED.join(', ')} on inbox_message
       begin ${body([...removed(d, 'OLD'), ...added(d, 'NEW')])} end`,
    )
    .execute(db);
  await sql
    .raw(`create trigger inbox_reply_insert after insert on inbox_reply begin ${replyAdded(d, 'NEW')}; end`)
    .execute(db);
  await sql
    .raw(`create trigger inbox_reply_delete after delete on inbox_reply begin ${body(replyRemoved('OLD'))} end`)
    .execute(db);
}

/** Fills the sums from the messages stored before this migration. */
async function rebuildInboxAnalytics(db: Kysely<unknown>, d: Dialect): Promise<void> {
  await sql
    .raw(
      `insert into inbox_volume_day (tenant_id, day, account_id, source, direction, messages, ${HOURS.join(', ')})
       select m.tenant_id, ${day('m')}, m.account_id, ${d.source('m')}, m.direction, count(*),
         ${HOURS.map((h) => `sum(${hourShare('m', h)})`).join(', ')}
       from inbox_message m group by m.tenant_id, ${day('m')}, m.account_id, ${d.source('m')}, m.direction`,
    )
    .execute(db);
  await sql
    .raw(
      `insert into inbox_conversation_day (tenant_id, day, conversation_id, source, account_id, received, sent, first_at, last_at)
       select m.tenant_id, ${day('m')}, m.conversation_id, ${d.source('m')}, min(m.account_id),
         sum(case when m.direction = 'incoming' then 1 else 0 end), sum(case when m.direction = 'incoming' then 0 else 1 end),
         min(m.sent_at), max(m.sent_at)
       from inbox_message m group by m.tenant_id, ${day('m')}, m.conversation_id, ${d.source('m')}`,
    )
    .execute(db);
  await sql.raw(replyInsert(d, '1 = 1')).execute(db);
  await sql
    .raw(
      `insert into inbox_reply_day (${REPLY_KEY}, replies, seconds_sum, min_seconds, max_seconds)
       select tenant_id, day, account_id, bucket, count(*), sum(seconds), min(seconds), max(seconds)
       from inbox_reply group by tenant_id, day, account_id, bucket`,
    )
    .execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
