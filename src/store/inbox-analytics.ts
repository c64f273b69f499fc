import { sql } from 'kysely';
import type { Executor } from './db.js';

/*
 * Reads of the inbox analytics sums (migration 0310): every query is one tenant's rows in a range of UTC
 * days, so it walks the sums' primary key, never the messages.
 */

export interface InboxAnalyticsFilter {
  tenantId: string;
  /** The accounts counted; null: every account of the tenant. */
  accountIds: string[] | null;
  /** First and last UTC day, YYYY-MM-DD, both included. */
  fromDay: string;
  toDay: string;
  source?: string;
}

export const HOUR_COLUMNS = Array.from({ length: 24 }, (_, h) => `h${String(h).padStart(2, '0')}`);

const n = (v: unknown) => Number(v ?? 0);

function scoped<T extends string>(f: InboxAnalyticsFilter, table: T, withSource = true) {
  const parts = [
    sql`${sql.ref(`${table}.tenant_id`)} = ${f.tenantId}`,
    sql`${sql.ref(`${table}.day`)} >= ${f.fromDay}`,
    sql`${sql.ref(`${table}.day`)} <= ${f.toDay}`,
  ];
  if (f.accountIds) {
    parts.push(
      f.accountIds.length ? sql`${sql.ref(`${table}.account_id`)} in (${sql.join(f.accountIds)})` : sql`1 = 0`,
    );
  }
  if (withSource && f.source) parts.push(sql`${sql.ref(`${table}.source`)} = ${f.source}`);
  return sql.join(parts, sql` and `);
}

/** Messages per day and direction. */
export async function volumeByDay(db: Executor, f: InboxAnalyticsFilter) {
  const { rows } = await sql<{ day: string; direction: string; messages: unknown }>`
    select day, direction, sum(messages) as messages from inbox_volume_day
    where ${scoped(f, 'inbox_volume_day')} group by day, direction order by day`.execute(db);
  return rows.map((r) => ({ day: r.day, direction: r.direction, messages: n(r.messages) }));
}

/** Messages per account, direction and source. */
export async function volumeByAccount(db: Executor, f: InboxAnalyticsFilter, withSourceFilter = true) {
  const { rows } = await sql<{ account_id: string; direction: string; source: string; messages: unknown }>`
    select account_id, direction, source, sum(messages) as messages from inbox_volume_day
    where ${scoped(f, 'inbox_volume_day', withSourceFilter)} group by account_id, direction, source`.execute(db);
  return rows.map((r) => ({ ...r, messages: n(r.messages) }));
}

/** Per day and direction, the messages of each UTC hour of the day (24 numbers). */
export async function hoursByDay(db: Executor, f: InboxAnalyticsFilter, direction?: string) {
  const sums = sql.join(HOUR_COLUMNS.map((h) => sql`sum(${sql.ref(h)}) as ${sql.ref(h)}`));
  const dir = direction ? sql` and direction = ${direction}` : sql``;
  const { rows } = await sql<Record<string, unknown> & { day: string; direction: string }>`
    select day, direction, ${sums} from inbox_volume_day
    where ${scoped(f, 'inbox_volume_day')}${dir} group by day, direction`.execute(db);
  return rows.map((r) => ({ day: r.day, direction: r.direction, hours: HOUR_COLUMNS.map((h) => n(r[h])) }));
}

/** Conversations with at least one message in the range (per account when `byAccount`). */
export async function conversationCounts(db: Executor, f: InboxAnalyticsFilter) {
  const { rows } = await sql<{ account_id: string; conversations: unknown }>`
    select account_id, count(distinct conversation_id) as conversations from inbox_conversation_day
    where ${scoped(f, 'inbox_conversation_day')} group by account_id`.execute(db);
  return rows.map((r) => ({ accountId: r.account_id, conversations: n(r.conversations) }));
}

export interface ReplyBucket {
  accountId: string;
  bucket: number;
  replies: number;
  secondsSum: number;
  min: number;
  max: number;
}

/** The replies of the range per account and seconds bucket, ascending buckets. */
export async function replyBuckets(db: Executor, f: InboxAnalyticsFilter): Promise<ReplyBucket[]> {
  const { rows } = await sql<Record<string, unknown>>`
    select account_id, bucket, sum(replies) as replies, sum(seconds_sum) as seconds_sum,
      min(min_seconds) as min_seconds, max(max_seconds) as max_seconds
    from inbox_reply_day where ${scoped(f, 'inbox_reply_day', false)}
    group by account_id, bucket order by bucket`.execute(db);
  return rows.map((r) => ({
    accountId: String(r.account_id),
    bucket: n(r.bucket),
    replies: n(r.replies),
    secondsSum: n(r.seconds_sum),
    min: n(r.min_seconds),
    max: n(r.max_seconds),
  }));
}

export const CONVERSATION_SORTS = {
  lastMessageAt: 'last_at',
  firstMessageAt: 'first_at',
  totalMessages: 'total',
  received: 'received',
  sent: 'sent',
} as const;

export interface ConversationTotals {
  conversationId: string;
  accountId: string;
  received: number;
  sent: number;
  firstAt: string;
  lastAt: string;
}

/** One page of the conversations active in the range, with their totals there, and how many there are. */
export async function listConversationTotals(
  db: Executor,
  f: InboxAnalyticsFilter,
  page: { sort: keyof typeof CONVERSATION_SORTS; order: 'asc' | 'desc'; limit: number; offset: number },
): Promise<{ total: number; rows: ConversationTotals[] }> {
  const where = scoped(f, 'inbox_conversation_day');
  const dir = page.order === 'asc' ? sql`asc` : sql`desc`;
  const [{ rows: count }, { rows }] = await Promise.all([
    sql<{ n: unknown }>`select count(distinct conversation_id) as n from inbox_conversation_day where ${where}`.execute(
      db,
    ),
    sql<Record<string, unknown>>`
      select conversation_id, min(account_id) as account_id, sum(received) as received, sum(sent) as sent,
        sum(received) + sum(sent) as total, min(first_at) as first_at, max(last_at) as last_at
      from inbox_conversation_day where ${where} group by conversation_id
      order by ${sql.ref(CONVERSATION_SORTS[page.sort])} ${dir}, conversation_id ${dir}
      limit ${page.limit} offset ${page.offset}`.execute(db),
  ]);
  return {
    total: n(count[0]?.n),
    rows: rows.map((r) => ({
      conversationId: String(r.conversation_id),
      accountId: String(r.account_id),
      received: n(r.received),
      sent: n(r.sent),
      firstAt: String(r.first_at),
      lastAt: String(r.last_at),
    })),
  };
}

/** One conversation's days and sources in the range. */
export async function conversationDays(
  db: Executor,
  tenantId: string,
  conversationId: string,
  fromDay: string,
  toDay: string,
) {
  const rows = await db
    .selectFrom('inbox_conversation_day')
    .select(['day', 'source', 'received', 'sent', 'first_at', 'last_at'])
    .where('conversation_id', '=', conversationId)
    .where('tenant_id', '=', tenantId)
    .where('day', '>=', fromDay)
    .where('day', '<=', toDay)
    .orderBy('day')
    .execute();
  return rows.map((r) => ({ ...r, received: n(r.received), sent: n(r.sent) }));
}

/** The conversations of a page of totals (participant, last message preview). */
export async function conversationsByIds(db: Executor, tenantId: string, ids: string[]) {
  if (!ids.length) return [];
  return db
    .selectFrom('inbox_conversation')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('conversation_id', 'in', ids)
    .execute();
}

/** A conversation of these accounts by Herald's id or the platform's; null when none is. */
export async function findAnalyticsConversation(db: Executor, tenantId: string, id: string, accountIds: string[]) {
  if (!accountIds.length) return null;
  // Two lookups, each one index probe: by Herald's id (the key), else by the platform's per account.
  const byId = await db
    .selectFrom('inbox_conversation')
    .selectAll()
    .where('conversation_id', '=', id)
    .where('tenant_id', '=', tenantId)
    .where('account_id', 'in', accountIds)
    .executeTakeFirst();
  if (byId) return byId;
  const row = await db
    .selectFrom('inbox_conversation')
    .selectAll()
    .where('account_id', 'in', accountIds)
    .where('platform_conversation_id', '=', id)
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}
