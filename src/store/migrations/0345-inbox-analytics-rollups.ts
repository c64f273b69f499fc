import { PostgresAdapter, sql, type Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * The inbox analytics of migration 0310 at a million messages: counting the conversations of a range
 * (`count(distinct conversation_id)` over one row per conversation and day) took seconds, and the
 * per-message insert trigger made storing a message many times dearer. This migration:
 *
 * - links each `inbox_conversation_day` row to the conversation's previous and next active day
 *   (`prev_day`, '' when none; `next_day`, null when none), per source, and adds one row per
 *   conversation and day for all sources together (source `all`, the totals of that day's rows);
 * - adds `inbox_active_day`: per tenant, day, account, source (or `all`) and previous active day, how
 *   many conversations were active that day. A conversation is active in [from, to] exactly when one of
 *   its days in the range has its previous day before `from`, so the conversations of a range are
 *   `sum(conversations) where day in range and prev_day < from`: a sum over pre-aggregated rows;
 * - drops the insert trigger: the store's insert path (store/inbox-analytics-keep.ts) adds a batch of
 *   new messages to every sum in set-based statements, once per ingest transaction. Deleting or
 *   changing a message (rare, and also by cascade) still goes through per-row triggers.
 *
 * A row is new until linked: it is written with `prev_day` null, and `linkNewDays` links every such row
 * (and fixes its neighbours and the counts) before its transaction ends. The builders are exported for
 * that store module, so the triggers and the insert path share one text. On PostgreSQL two transactions
 * never link days of one conversation at once: storing a message first upserts its conversation's row
 * (store/inbox/conversations.ts, ensureConversation), which holds that row's lock until the commit.
 */

export const ANY_SOURCE = 'all';
const KNOWN = ['human', 'workflow', 'sequence', 'broadcast', 'comment_automation', 'api', 'contact', 'platform']
  .map((s) => `'${s}'`)
  .join(', ');
const HOURS = Array.from({ length: 24 }, (_, h) => `h${String(h).padStart(2, '0')}`);
const ICD = 'inbox_conversation_day';
const COUNT_KEY = 'tenant_id, day, account_id, source, prev_day';
const VOLUME_KEY = 'tenant_id, day, account_id, source, direction';
const DAY_KEY = 'tenant_id, day, conversation_id, source';

/** The dialect's pieces of text (what differs between SQLite and PostgreSQL). */
interface InboxDialect {
  /** The source of message row `r` (NEW, OLD or a table alias). */
  source(r: string): string;
  /** Whole seconds from ISO instant `a` to `b`. */
  seconds(a: string, b: string): string;
  least: string;
  greatest: string;
  /** Ends a subquery that must be computed once per row, not folded into its outer query. */
  fence: string;
}

export const SQLITE_INBOX: InboxDialect = {
  source: (r) =>
    `coalesce((select s from (select case when json_valid(${r}.metadata) then json_extract(${r}.metadata, '$.source') end as s) where s in (${KNOWN})), 'platform')`,
  seconds: (a, b) => `cast(round((julianday(${b}) - julianday(${a})) * 86400) as integer)`,
  least: 'min',
  greatest: 'max',
  fence: 'limit -1 offset 0',
};

export const POSTGRES_INBOX: InboxDialect = {
  // The function of migration 0310.
  source: (r) => `inbox_message_source(${r}.metadata)`,
  seconds: (a, b) =>
    `cast(round(extract(epoch from (cast(${b} as timestamptz) - cast(${a} as timestamptz)))) as bigint)`,
  least: 'least',
  greatest: 'greatest',
  fence: 'offset 0',
};

const day = (r: string) => `substr(${r}.sent_at, 1, 10)`;
const hourShare = (r: string, h: string) => `case when substr(${r}.sent_at, 12, 2) = '${h.slice(1)}' then 1 else 0 end`;
const incoming = (r: string, yes: string, no: string) =>
  `case when ${r}.direction = 'incoming' then ${yes} else ${no} end`;
const addCounts = (select: string) =>
  `insert into inbox_active_day (${COUNT_KEY}, conversations) ${select}
   on conflict (${COUNT_KEY}) do update set conversations = inbox_active_day.conversations + excluded.conversations`;

/** The day of row `r`'s conversation and source just before (after) its own; null when none. */
const neighbour = (r: string, agg: 'max' | 'min', extra = '') =>
  `(select ${agg}(x.day) from ${ICD} x where x.conversation_id = ${r}.conversation_id and x.source = ${r}.source
     and x.day ${agg === 'max' ? '<' : '>'} ${r}.day${extra})`;

/**
 * Links the rows written since the last call (`prev_day` null): their own links, their neighbours'
 * links, and the conversation counts. Several new days of one conversation in one batch, and days that
 * arrive out of order, are linked as if they had come one at a time.
 */
function linkNewDays(): string[] {
  // The first linked row after each new one: its previous day changes (to the latest new day before it).
  const moved = `select distinct e.tenant_id, e.day, e.conversation_id, e.source, e.account_id, e.prev_day
    from ${ICD} n join ${ICD} e on e.tenant_id = n.tenant_id and e.conversation_id = n.conversation_id
      and e.source = n.source and e.day = ${neighbour('n', 'min', ' and x.prev_day is not null')}
    where n.prev_day is null`;
  return [
    addCounts(`select e.tenant_id, e.day, e.account_id, e.source, e.prev_day, -count(*) from (${moved}) e where true
      group by e.tenant_id, e.day, e.account_id, e.source, e.prev_day`),
    addCounts(`select q.tenant_id, q.day, q.account_id, q.source, q.p, count(*)
      from (select e.tenant_id, e.day, e.account_id, e.source, coalesce(${neighbour('e', 'max')}, '') as p from (${moved}) e) q
      where true group by q.tenant_id, q.day, q.account_id, q.source, q.p`),
    `delete from inbox_active_day where conversations <= 0
     and (tenant_id, day) in (select tenant_id, day from (${moved}) e)`,
    `update ${ICD} set prev_day = coalesce(${neighbour(ICD, 'max')}, '')
     where prev_day is not null and (${DAY_KEY}) in (select tenant_id, day, conversation_id, source from (${moved}) e)`,
    addCounts(`select q.tenant_id, q.day, q.account_id, q.source, q.p, count(*)
      from (select n.tenant_id, n.day, n.account_id, n.source, coalesce(${neighbour('n', 'max')}, '') as p
        from ${ICD} n where n.prev_day is null) q
      where true group by q.tenant_id, q.day, q.account_id, q.source, q.p`),
    // The day before each new one: its next day changes.
    `update ${ICD} set next_day = ${neighbour(ICD, 'min')}
     where (tenant_id, conversation_id, source, day) in
       (select n.tenant_id, n.conversation_id, n.source, ${neighbour('n', 'max')} from ${ICD} n where n.prev_day is null)`,
    `update ${ICD} set prev_day = coalesce(${neighbour(ICD, 'max')}, ''), next_day = ${neighbour(ICD, 'min')}
     where prev_day is null`,
  ];
}

/**
 * Inserts the reply of each outgoing message `o` that `where` selects and that has one (as 0310, but
 * the first incoming message is looked up once per reply, not once for each use of its seconds).
 */
function replyInsert(d: InboxDialect, where: string): string {
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
         from inbox_message o where ${where} and o.direction = 'outgoing' ${d.fence}) q
       where q.received_at is not null ${d.fence}) r`;
}

/** Three significant digits of `s` seconds (exact below 1,000), as 0310. */
function bucket(s: string): string {
  const steps = [1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000];
  return `case when ${s} < 1000 then ${s} ${steps
    .slice(1)
    .map((top, i) => `when ${s} < ${top} then ${s} / ${10 ** (i + 1)} * ${10 ** (i + 1)}`)
    .join(' ')} else ${s} / 100000 * 100000 end`;
}

/**
 * The first outgoing message after row `r` in its conversation (by time, then id): its reply may have
 * changed. Two probes of the (conversation, direction, time) index: an ORDER BY time, id LIMIT 1 read
 * every later message of the conversation and sorted them, for each message stored.
 */
const nextOutgoing = (r: string) => {
  const outgoing = (a: string) => `${a}.conversation_id = ${r}.conversation_id and ${a}.direction = 'outgoing'`;
  return `(select min(n.message_id) from inbox_message n where ${outgoing('n')} and n.sent_at =
     (select min(t.sent_at) from inbox_message t where ${outgoing('t')} and t.sent_at > ${r}.sent_at))`;
};

/** The replies of the outgoing messages `ids` (an SQL list or subquery), computed again. */
const repliesAgain = (d: InboxDialect, ids: string) => [
  `delete from inbox_reply where message_id in (${ids})`,
  replyInsert(d, `o.message_id in (${ids})`),
];

/**
 * Adds the messages `m` that `where` selects (inserted in this transaction, not counted yet) to every
 * sum: set-based, so a batch costs a few statements whatever its size.
 */
export function addMessages(d: InboxDialect, where: string): string[] {
  // Each message's source worked out once (it reads the metadata's JSON).
  const batch = `(select m.tenant_id, m.account_id, m.conversation_id, m.direction, m.sent_at, ${d.source('m')} as source
    from inbox_message m where ${where} ${d.fence}) m`;
  const conversationDays = (source: string, groupSource: string) =>
    `insert into ${ICD} (${DAY_KEY}, account_id, received, sent, first_at, last_at)
     select m.tenant_id, ${day('m')}, m.conversation_id, ${source}, min(m.account_id),
       sum(${incoming('m', '1', '0')}), sum(${incoming('m', '0', '1')}), min(m.sent_at), max(m.sent_at)
     from ${batch} where true group by m.tenant_id, ${day('m')}, m.conversation_id${groupSource}
     on conflict (${DAY_KEY}) do update set received = ${ICD}.received + excluded.received,
       sent = ${ICD}.sent + excluded.sent, first_at = ${d.least}(${ICD}.first_at, excluded.first_at),
       last_at = ${d.greatest}(${ICD}.last_at, excluded.last_at)`;
  return [
    `insert into inbox_volume_day (${VOLUME_KEY}, messages, ${HOURS.join(', ')})
     select m.tenant_id, ${day('m')}, m.account_id, m.source, m.direction, count(*),
       ${HOURS.map((h) => `sum(${hourShare('m', h)})`).join(', ')}
     from ${batch} where true group by m.tenant_id, ${day('m')}, m.account_id, m.source, m.direction
     on conflict (${VOLUME_KEY}) do update set messages = inbox_volume_day.messages + excluded.messages,
       ${HOURS.map((h) => `${h} = inbox_volume_day.${h} + excluded.${h}`).join(', ')}`,
    conversationDays('m.source', ', m.source'),
    conversationDays(`'${ANY_SOURCE}'`, ''),
    ...linkNewDays(),
    // Each new outgoing message has a reply, and the first outgoing one after each new message may
    // have another (a message that arrives late).
    // (A new message has no reply stored yet: only the later ones' may be there to delete.)
    `delete from inbox_reply where message_id in (select ${nextOutgoing('m')} from inbox_message m where ${where})`,
    replyInsert(
      d,
      `o.message_id in (select m.message_id from inbox_message m where ${where} and m.direction = 'outgoing'
       union select ${nextOutgoing('m')} from inbox_message m where ${where})`,
    ),
  ];
}

/** One message row `r` (NEW) added, in a trigger. */
function added(d: InboxDialect, r: string): string[] {
  const conversationDay = (source: string) =>
    `insert into ${ICD} (${DAY_KEY}, account_id, received, sent, first_at, last_at)
     values (${r}.tenant_id, ${day(r)}, ${r}.conversation_id, ${source}, ${r}.account_id,
       ${incoming(r, '1', '0')}, ${incoming(r, '0', '1')}, ${r}.sent_at, ${r}.sent_at)
     on conflict (${DAY_KEY}) do update set received = ${ICD}.received + excluded.received,
       sent = ${ICD}.sent + excluded.sent, first_at = ${d.least}(${ICD}.first_at, excluded.first_at),
       last_at = ${d.greatest}(${ICD}.last_at, excluded.last_at)`;
  return [
    `insert into inbox_volume_day (${VOLUME_KEY}, messages, ${HOURS.join(', ')})
     values (${r}.tenant_id, ${day(r)}, ${r}.account_id, ${d.source(r)}, ${r}.direction, 1,
       ${HOURS.map((h) => hourShare(r, h)).join(', ')})
     on conflict (${VOLUME_KEY}) do update set messages = inbox_volume_day.messages + excluded.messages,
       ${HOURS.map((h) => `${h} = inbox_volume_day.${h} + excluded.${h}`).join(', ')}`,
    conversationDay(d.source(r)),
    conversationDay(`'${ANY_SOURCE}'`),
    ...linkNewDays(),
    ...repliesAgain(d, `${r}.message_id`),
    ...repliesAgain(d, nextOutgoing(r)),
  ];
}

/** One message row `r` (OLD) gone, in a trigger: the sums lose it, a day left empty is unlinked. */
function removed(d: InboxDialect, r: string): string[] {
  const volumeWhere = `tenant_id = ${r}.tenant_id and day = ${day(r)} and account_id = ${r}.account_id
    and source = ${d.source(r)} and direction = ${r}.direction`;
  const dayRow = (source: string, alias = '') =>
    `${alias}tenant_id = ${r}.tenant_id and ${alias}day = ${day(r)} and ${alias}conversation_id = ${r}.conversation_id and ${alias}source = ${source}`;
  const conversationDay = (source: string, bySource: boolean) => {
    // The first and last message of the day (and source) left, read again from the messages (a few rows).
    const left = (agg: string) =>
      `(select ${agg}(m.sent_at) from inbox_message m where m.conversation_id = ${r}.conversation_id
         and m.sent_at >= ${day(r)} and m.sent_at < ${day(r)} || 'T24'${bySource ? ` and ${d.source('m')} = ${d.source(r)}` : ''})`;
    const empty = `${dayRow(source, 'r.')} and r.received + r.sent <= 0`;
    const chain = (column: string) => `tenant_id = ${r}.tenant_id and conversation_id = ${r}.conversation_id
      and source = ${source} and day = (select r.${column} from ${ICD} r where ${empty})`;
    return [
      `update ${ICD} set received = received - ${incoming(r, '1', '0')}, sent = sent - ${incoming(r, '0', '1')},
         first_at = coalesce(${left('min')}, first_at), last_at = coalesce(${left('max')}, last_at)
       where ${dayRow(source)}`,
      // A day left empty: its count goes, the next day's previous day becomes its previous day.
      addCounts(`select r.tenant_id, r.day, r.account_id, r.source, r.prev_day, -1 from ${ICD} r where ${empty}`),
      addCounts(`select nx.tenant_id, nx.day, nx.account_id, nx.source, nx.prev_day, -1
        from ${ICD} r join ${ICD} nx on nx.tenant_id = r.tenant_id and nx.conversation_id = r.conversation_id
          and nx.source = r.source and nx.day = r.next_day where ${empty}`),
      addCounts(`select nx.tenant_id, nx.day, nx.account_id, nx.source, r.prev_day, 1
        from ${ICD} r join ${ICD} nx on nx.tenant_id = r.tenant_id and nx.conversation_id = r.conversation_id
          and nx.source = r.source and nx.day = r.next_day where ${empty}`),
      `delete from inbox_active_day where tenant_id = ${r}.tenant_id and conversations <= 0
       and day in (${day(r)}, (select r.next_day from ${ICD} r where ${empty}))`,
      `update ${ICD} set prev_day = (select r.prev_day from ${ICD} r where ${empty}) where ${chain('next_day')}`,
      `update ${ICD} set next_day = (select r.next_day from ${ICD} r where ${empty}) where ${chain('prev_day')}`,
      `delete from ${ICD} where ${dayRow(source)} and received + sent <= 0`,
    ];
  };
  return [
    `update inbox_volume_day set messages = messages - 1,
       ${HOURS.map((h) => `${h} = ${h} - ${hourShare(r, h)}`).join(', ')}
     where ${volumeWhere}`,
    `delete from inbox_volume_day where ${volumeWhere} and messages <= 0`,
    ...conversationDay(d.source(r), true),
    ...conversationDay(`'${ANY_SOURCE}'`, false),
    `delete from inbox_reply where message_id = ${r}.message_id`,
    ...repliesAgain(d, nextOutgoing(r)),
  ];
}

const WATCHED = ['tenant_id', 'account_id', 'conversation_id', 'direction', 'metadata', 'sent_at'];

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const d = postgres ? POSTGRES_INBOX : SQLITE_INBOX;

  // The insert trigger goes first: from now on the store's insert path adds new messages.
  if (postgres) {
    await sql.raw('drop trigger inbox_analytics_keep on inbox_message').execute(db);
    await sql.raw('drop function inbox_analytics_keep()').execute(db);
  } else {
    for (const t of ['inbox_analytics_insert', 'inbox_analytics_delete', 'inbox_analytics_update'])
      await sql.raw(`drop trigger ${t}`).execute(db);
  }

  await db.schema.alterTable(ICD).addColumn('prev_day', 'text').execute();
  await db.schema.alterTable(ICD).addColumn('next_day', 'text').execute();
  await db.schema.dropIndex('inbox_conversation_day_conversation_idx').execute();
  // One conversation's days per source, in order: the links, and one conversation's analytics.
  await db.schema
    .createIndex('inbox_conversation_day_chain_idx')
    .on(ICD)
    .columns(['conversation_id', 'source', 'day'])
    .execute();
  // The rows not linked yet: only those of the transaction writing them.
  await db.schema
    .createIndex('inbox_conversation_day_new_idx')
    .on(ICD)
    .column('conversation_id')
    .where(sql.ref('prev_day'), 'is', null)
    .execute();
  // The conversation listing by last (first) message: a walk of one tenant's days in that order.
  await db.schema
    .createIndex('inbox_conversation_day_last_idx')
    .on(ICD)
    .columns(['tenant_id', 'source', 'last_at', 'conversation_id'])
    .execute();
  await db.schema
    .createIndex('inbox_conversation_day_first_idx')
    .on(ICD)
    .columns(['tenant_id', 'source', 'first_at', 'conversation_id'])
    .execute();

  let counts = db.schema
    .createTable('inbox_active_day')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('prev_day', 'text', (c) => c.notNull())
    .addColumn('conversations', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('inbox_active_day_pk', ['tenant_id', 'day', 'account_id', 'source', 'prev_day']);
  if (!postgres) counts = counts.modifyEnd(sql`without rowid`);
  await counts.execute();

  // The days of the messages stored before: all sources together, then every row linked and counted.
  await sql
    .raw(
      `insert into ${ICD} (${DAY_KEY}, account_id, received, sent, first_at, last_at)
       select tenant_id, day, conversation_id, '${ANY_SOURCE}', min(account_id), sum(received), sum(sent), min(first_at), max(last_at)
       from ${ICD} group by tenant_id, day, conversation_id`,
    )
    .execute(db);
  await sql
    .raw(`update ${ICD} set prev_day = coalesce(${neighbour(ICD, 'max')}, ''), next_day = ${neighbour(ICD, 'min')}`)
    .execute(db);
  await sql
    .raw(
      `insert into inbox_active_day (${COUNT_KEY}, conversations)
       select ${COUNT_KEY}, count(*) from ${ICD} group by ${COUNT_KEY}`,
    )
    .execute(db);

  if (postgres) {
    await sql
      .raw(
        `create function inbox_analytics_change() returns trigger language plpgsql as $$
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
        `create trigger inbox_analytics_change after delete or update of ${WATCHED.join(', ')} on inbox_message
         for each row execute function inbox_analytics_change()`,
      )
      .execute(db);
    return;
  }
  const body = (statements: string[]) => statements.map((s) => `${s};`).join('\n');
  await sql
    .raw(`create trigger inbox_analytics_delete after delete on inbox_message begin ${body(removed(d, 'OLD'))} end`)
    .execute(db);
  await sql
    .raw(
      `create trigger inbox_analytics_update after update of ${WATCHED.join(', ')} on inbox_message
       begin ${body([...removed(d, 'OLD'), ...added(d, 'NEW')])} end`,
    )
    .execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
