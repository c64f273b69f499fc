import { sql, type RawBuilder } from 'kysely';
import type { Executor } from './db.js';
import { scoped, type InboxAnalyticsFilter } from './inbox-analytics-filter.js';
import { ANY_SOURCE } from './migrations/0345-inbox-analytics-rollups.js';

/*
 * The conversation listing of the inbox analytics sorted by a count in the range (issue #33). Four
 * ways, each giving exactly the page the scan gives (ties by conversation id, in the sort's direction):
 *
 * 1. The range holds every day of the tenant: each conversation's count there is its count of all time
 *    (migration 0370), so the page is read from that count's index, either direction.
 * 2. Descending: a walk of the conversations by their count of all time, which no count in a range can
 *    exceed. Each batch's counts in the range are index probes; the walk stops as soon as the next
 *    conversation's count of all time cannot beat the page's last. Most pages stop after a batch or two.
 * 3. Few conversations over the range's edges: the others count their count of all time (an index walk
 *    in order); those few are probed; the two merged.
 * 4. Otherwise (counts in the range far below those of all time, over many edges): the scan, every
 *    conversation active in the range with its count there, sorted.
 * 2 and 3 give up for 4 after a quarter of the rows the scan reads (a probe costs some four of them).
 */

type CountSort = 'total' | 'received' | 'sent';

/** The most conversation ids a query takes as parameters. */
const MAX_BATCH = 2000;

/**
 * The count in the range of the conversations `f` whose first day in the range it is (f.prev_day before
 * the range): that day's count when it is also its last day there (most conversations), else the sum of
 * its days there (an index probe).
 */
function countInRange(f: InboxAnalyticsFilter, sort: CountSort) {
  const count = (c: 'received' | 'sent') =>
    sql`case when f.next_day is null or f.next_day > ${f.toDay} then f.${sql.raw(c)} else (select sum(x.${sql.raw(c)})
      from inbox_conversation_day x where x.conversation_id = f.conversation_id and x.source = f.source
        and x.day >= ${f.fromDay} and x.day <= ${f.toDay}) end`;
  return sort === 'total' ? sql`${count('received')} + ${count('sent')}` : count(sort);
}

/** The conversations active in the range (their first day there), of the filter's accounts and source. */
const firstDays = (f: InboxAnalyticsFilter) =>
  sql`${scoped(f, 'f', false)} and f.source = ${f.source ?? ANY_SOURCE} and f.prev_day < ${f.fromDay}`;

/** The ids of one page of the conversations active in the range, by their count there. */
export async function pageByCount(
  db: Executor,
  f: InboxAnalyticsFilter,
  page: { sort: CountSort; order: 'asc' | 'desc'; limit: number; offset: number },
  /** How many conversations are active in the range (the scan reads that many). */
  active: number,
): Promise<string[]> {
  if (!active || (f.accountIds && !f.accountIds.length)) return [];
  const dir = page.order === 'asc' ? sql`asc` : sql`desc`;
  const accounts = f.accountIds ? sql` and account_id in (${sql.join(f.accountIds)})` : sql``;
  const ofTenant = sql`tenant_id = ${f.tenantId} and source = ${f.source ?? ANY_SOURCE}${accounts}`;

  // Two probes of the days' key (tenant, day, ...): the tenant's first and last day.
  const { rows: span } = await sql<{ first: string | null; last: string | null }>`
    select (select min(day) from inbox_conversation_day where tenant_id = ${f.tenantId}) as first,
      (select max(day) from inbox_conversation_day where tenant_id = ${f.tenantId}) as last`.execute(db);
  const { first, last } = span[0] ?? { first: null, last: null };
  if (first !== null && last !== null && f.fromDay <= first && last <= f.toDay) {
    const { rows } = await sql<{ conversation_id: string }>`
      select conversation_id from inbox_conversation_total where ${ofTenant}
      order by ${sql.ref(page.sort)} ${dir}, conversation_id ${dir} limit ${page.limit} offset ${page.offset}`.execute(
      db,
    );
    return rows.map((r) => r.conversation_id);
  }

  const walked = page.order === 'desc' ? await walk(db, f, page, active, ofTenant) : null;
  if (walked) return walked;
  const merged = await split(db, f, page, active, ofTenant);
  if (merged) return merged;
  const { rows } = await sql<{ conversation_id: string }>`
    select f.conversation_id, ${countInRange(f, page.sort)} as k from inbox_conversation_day f where ${firstDays(f)}
    order by k ${dir}, f.conversation_id ${dir} limit ${page.limit} offset ${page.offset}`.execute(db);
  return rows.map((r) => r.conversation_id);
}

interface Ranked {
  id: string;
  count: number;
}

// NOTE: conversation ids are lowercase hex, whose order is the same in JavaScript and in every collation.
/** Whether `a` comes before `b` in descending order (count, then id). */
const before = (a: Ranked, b: Ranked) => a.count > b.count || (a.count === b.count && a.id > b.id);

/** The counts in the range of the conversations `of` (index probes); those with none there are left out. */
async function probe(db: Executor, f: InboxAnalyticsFilter, sort: CountSort, of: { conversation_id: string }[]) {
  const { rows } = await sql<{ conversation_id: string; k: unknown }>`
    select f.conversation_id, ${countInRange(f, sort)} as k from inbox_conversation_day f
    where ${firstDays(f)} and f.conversation_id in (${sql.join(of.map((r) => r.conversation_id))})`.execute(db);
  return rows.map((r): Ranked => ({ id: r.conversation_id, count: Number(r.k ?? 0) }));
}

/**
 * Either direction: a conversation whose days all lie in the range counts there its count of all time,
 * so the first of those are a walk of the index in order; the others whose days meet the range (over
 * its edges) are probed, and the two merged. Null when the latter are more than a quarter of the
 * conversations the scan reads (long conversations over a short range).
 */
async function split(
  db: Executor,
  f: InboxAnalyticsFilter,
  page: { sort: CountSort; order: 'asc' | 'desc'; limit: number; offset: number },
  active: number,
  ofTenant: RawBuilder<unknown>,
): Promise<string[] | null> {
  const most = Math.floor(active / 4);
  // Over the start (by first day), then over the end (by last day): two walks of their indexes (0390).
  const { rows: edges } = await sql<{ conversation_id: string }>`
    select conversation_id from inbox_conversation_total
    where ${ofTenant} and first_day < ${f.fromDay} and last_day >= ${f.fromDay}
    union
    select conversation_id from inbox_conversation_total
    where ${ofTenant} and last_day > ${f.toDay} and first_day <= ${f.toDay} and first_day >= ${f.fromDay}
    limit ${most + 1}`.execute(db);
  if (edges.length > most) return null;
  const count = sql.ref(page.sort);
  const dir = page.order === 'asc' ? sql`asc` : sql`desc`;
  const { rows: inside } = await sql<{ conversation_id: string; c: unknown }>`
    select conversation_id, ${count} as c from inbox_conversation_total
    where ${ofTenant} and first_day >= ${f.fromDay} and last_day <= ${f.toDay}
    order by ${count} ${dir}, conversation_id ${dir} limit ${page.offset + page.limit}`.execute(db);
  const ranked = inside.map((r): Ranked => ({ id: r.conversation_id, count: Number(r.c) }));
  for (let i = 0; i < edges.length; i += MAX_BATCH)
    ranked.push(...(await probe(db, f, page.sort, edges.slice(i, i + MAX_BATCH))));
  const sign = page.order === 'asc' ? 1 : -1;
  return ranked
    .sort((a, b) => sign * (before(a, b) ? 1 : -1))
    .slice(page.offset, page.offset + page.limit)
    .map((r) => r.id);
}

/**
 * The descending walk, over the conversations whose days may meet the range: null when it would read
 * more than a quarter of the conversations the scan reads (a probe costs some four times a row of the
 * scan), because the range's counts are far below the counts of all time and nothing stops it early.
 */
async function walk(
  db: Executor,
  f: InboxAnalyticsFilter,
  page: { sort: CountSort; limit: number; offset: number },
  active: number,
  ofTenant: RawBuilder<unknown>,
): Promise<string[] | null> {
  const want = page.offset + page.limit;
  const count = sql.ref(page.sort);
  let best: Ranked[] = [];
  let after: Ranked | null = null;
  const most = Math.max(want + 1, Math.floor(active / 4));
  let size = Math.min(want + 1, MAX_BATCH);
  for (let read = 0; read < most; read += size, size = Math.min(size * 2, MAX_BATCH)) {
    const next: RawBuilder<unknown> = after
      ? sql` and (${count}, conversation_id) < (${after.count}, ${after.id})`
      : sql``;
    const { rows } = await sql<{ conversation_id: string; c: unknown }>`
      select conversation_id, ${count} as c from inbox_conversation_total
      where ${ofTenant} and last_day >= ${f.fromDay} and first_day <= ${f.toDay}${next}
      order by ${count} desc, conversation_id desc limit ${size}`.execute(db);
    if (!rows.length) return best.slice(page.offset).map((r) => r.id);
    best = [...best, ...(await probe(db, f, page.sort, rows))].sort((a, b) => (before(a, b) ? -1 : 1)).slice(0, want);
    const tail: { conversation_id: string; c: unknown } = rows[rows.length - 1];
    after = { id: tail.conversation_id, count: Number(tail.c) };
    // Every conversation still to come is after `after`: when the page's last is before it, none enters.
    if (rows.length < size || (best.length === want && before(best[want - 1], after)))
      return best.slice(page.offset).map((r) => r.id);
  }
  return null;
}
