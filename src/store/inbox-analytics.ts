import { sql, type RawBuilder } from 'kysely';
import type { Executor } from './db.js';
import { pageByCount } from './inbox-analytics-count-sort.js';
import { scoped, type InboxAnalyticsFilter } from './inbox-analytics-filter.js';
import { ANY_SOURCE } from './migrations/0345-inbox-analytics-rollups.js';

/*
 * Reads of the inbox analytics sums (migrations 0310 and 0345): every query is one tenant's rows in a range of UTC
 * days, so it walks the sums' primary key, never the messages.
 */

const HOUR_COLUMNS = Array.from({ length: 24 }, (_, h) => `h${String(h).padStart(2, '0')}`);

const n = (v: unknown) => Number(v ?? 0);

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

/**
 * The conversations of the filter's source (all sources: `all`) active in the range: each counted on
 * its first day in the range, the one whose previous active day is before it (migration 0345), so this
 * is a sum of pre-aggregated rows.
 */
function activeWhere(f: InboxAnalyticsFilter) {
  return sql`${scoped(f, 'inbox_active_day', false)} and source = ${f.source ?? ANY_SOURCE} and prev_day < ${f.fromDay}`;
}

/** Conversations with at least one message in the range, per account. */
export async function conversationCounts(db: Executor, f: InboxAnalyticsFilter) {
  const { rows } = await sql<{ account_id: string; conversations: unknown }>`
    select account_id, sum(conversations) as conversations from inbox_active_day
    where ${activeWhere(f)} group by account_id`.execute(db);
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

/**
 * One page of the conversations active in the range, with their totals there, and how many there are.
 * By the last (first) message: a walk of the days in that order, keeping each conversation's last
 * (first) day in the range, the one whose next (previous) active day is outside it. By a count:
 * store/inbox-analytics-count-sort.ts.
 */
export async function listConversationTotals(
  db: Executor,
  f: InboxAnalyticsFilter,
  page: { sort: keyof typeof CONVERSATION_SORTS; order: 'asc' | 'desc'; limit: number; offset: number },
): Promise<{ total: number; rows: ConversationTotals[] }> {
  const where = sql`${scoped(f, 'inbox_conversation_day', false)} and source = ${f.source ?? ANY_SOURCE}`;
  const dir = page.order === 'asc' ? sql`asc` : sql`desc`;
  const totals = (ids: RawBuilder<unknown>) => sql<Record<string, unknown>>`
    select conversation_id, min(account_id) as account_id, sum(received) as received, sum(sent) as sent,
      sum(received) + sum(sent) as total, min(first_at) as first_at, max(last_at) as last_at
    from inbox_conversation_day where ${where} and conversation_id in (${ids})
    group by conversation_id`;
  const activeCount = sql<{ n: unknown }>`select sum(conversations) as n from inbox_active_day where ${activeWhere(f)}`;
  const pageIds = async (): Promise<string[]> => {
    const sort = CONVERSATION_SORTS[page.sort];
    if (sort !== 'last_at' && sort !== 'first_at') {
      const { rows: active } = await activeCount.execute(db);
      return pageByCount(db, f, { ...page, sort }, n(active[0]?.n));
    }
    // A time's first ten characters are its day: these bounds let the walk start and stop in the index
    // (the day after, not a character after: PostgreSQL may compare text in a locale's order).
    const after = new Date(Date.parse(`${f.toDay}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const edge = sort === 'last_at' ? sql`(next_day is null or next_day > ${f.toDay})` : sql`prev_day < ${f.fromDay}`;
    const { rows } = await sql<{ conversation_id: string }>`
      select conversation_id from inbox_conversation_day
      where ${where} and ${edge} and ${sql.ref(sort)} >= ${f.fromDay} and ${sql.ref(sort)} < ${after}
      order by ${sql.ref(sort)} ${dir}, conversation_id ${dir} limit ${page.limit} offset ${page.offset}`.execute(db);
    return rows.map((r) => r.conversation_id);
  };
  const pageRows = async () => {
    const ids = await pageIds();
    if (!ids.length) return [];
    const { rows } = await totals(sql.join(ids)).execute(db);
    const byId = new Map(rows.map((r) => [String(r.conversation_id), r]));
    return ids.map((id) => byId.get(id)!);
  };
  const [{ rows: count }, rows] = await Promise.all([activeCount.execute(db), pageRows()]);
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
    .where('source', '<>', ANY_SOURCE)
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
