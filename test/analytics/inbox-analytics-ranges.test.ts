import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestBatch } from '../../src/domain/inbox/ingest.js';
import type { InboundMessage } from '../../src/platforms/types.js';
import type { AccountRow } from '../../src/store/accounts.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { seedAccount, seedProfile } from '../helpers/test-platform-fixtures.js';
import { body, zernio } from '../helpers/zernio.js';

/*
 * The conversation counts and the conversation listing of the inbox analytics over conversations that
 * run over many days with gaps, stored out of order in several batches, then partly deleted, moved to
 * another source and gone with their account: after each step every figure, over many ranges, equals
 * the one computed here from the list of messages that remain.
 */

interface Seeded {
  account: AccountRow;
  conversationId: string;
  messageId: string;
  direction: 'incoming' | 'outgoing';
  sentAt: Date;
  source: string;
}

let env: TestEnv;
let owner: { userId: string; apiKey: string };
let accounts: AccountRow[];
let profileB: string;
let seeded: Seeded[] = [];

function rng(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

const DAY = 86_400_000;
const DAY0 = Date.UTC(2026, 2, 1);
const day = (d: Date) => d.toISOString().slice(0, 10);
const dayAt = (n: number) => day(new Date(DAY0 + n * DAY));

/** Conversations on a few days each over 20 days, some messages a second either side of midnight UTC. */
function conversationsOf(account: AccountRow, count: number, random: () => number, into: Seeded[]) {
  const messages: InboundMessage[] = [];
  for (let c = 0; c < count; c++) {
    const conversationId = `${account.username}-r${c}`;
    const days = 1 + Math.floor(random() * 5);
    for (let k = 0; k < days; k++) {
      const d = Math.floor(random() * 20);
      const perDay = 1 + Math.floor(random() * 3);
      for (let m = 0; m < perDay; m++) {
        const edge = random() < 0.2 ? (random() < 0.5 ? DAY - 1000 : 0) : Math.floor(random() * 86_400) * 1000;
        const sentAt = new Date(DAY0 + d * DAY + edge + m);
        const direction = random() < 0.5 ? 'incoming' : 'outgoing';
        const source =
          direction === 'outgoing' ? (random() < 0.4 ? 'api' : random() < 0.5 ? 'human' : 'platform') : 'platform';
        const messageId = `${conversationId}-d${k}-m${m}`;
        messages.push({
          conversationId,
          messageId,
          direction,
          sender: { id: direction === 'incoming' ? `fan-${c}` : account.platform_user_id },
          participant: { id: `fan-${c}`, name: `Fan ${c}` },
          text: messageId,
          sentAt,
          extra: source === 'platform' ? {} : { source },
        });
        into.push({ account, conversationId, messageId, direction, sentAt, source });
      }
    }
  }
  return messages;
}

/**
 * Two conversations a month before the others: one also has messages on day 3 (so it crosses the edge
 * of most ranges), the other none since. The tenant's days then start long before the ranges.
 */
function oldConversations(account: AccountRow, into: Seeded[]): InboundMessage[] {
  const at: [string, number, number, 'incoming' | 'outgoing', string][] = [
    ['old0', -30, 0, 'incoming', 'platform'],
    ['old0', -30, 1, 'outgoing', 'platform'],
    ['old0', -30, 2, 'incoming', 'platform'],
    ['old0', 3, 0, 'incoming', 'platform'],
    ['old0', 3, 1, 'outgoing', 'api'],
    ['old1', -30, 0, 'incoming', 'platform'],
    ['old1', -30, 1, 'outgoing', 'api'],
  ];
  return at.map(([c, d, m, direction, source]) => {
    const conversationId = `${account.username}-${c}`;
    const messageId = `${conversationId}-day${d}-m${m}`;
    const sentAt = new Date(DAY0 + d * DAY + 3_600_000 + m * 1000);
    into.push({ account, conversationId, messageId, direction, sentAt, source });
    return {
      conversationId,
      messageId,
      direction,
      sender: { id: direction === 'incoming' ? `fan-${c}` : account.platform_user_id },
      participant: { id: `fan-${c}`, name: `Fan ${c}` },
      text: messageId,
      sentAt,
      extra: source === 'platform' ? {} : { source },
    };
  });
}

/** The messages in batches of random sizes and order: days of a conversation arrive late, or together. */
async function storeShuffled(account: AccountRow, messages: InboundMessage[], random: () => number) {
  const list = [...messages];
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [list[i], list[j]] = [list[j], list[i]];
  }
  while (list.length) await ingestBatch(env.ctx, account, { messages: list.splice(0, 1 + Math.floor(random() * 12)) });
}

beforeAll(async () => {
  env = await createTestEnv({ now: '2026-03-25T12:00:00Z' });
  owner = await env.createUser({ addons: ['analytics', 'inbox'] });
  const profile = await seedProfile(env.ctx, owner.userId, 'A');
  accounts = [
    await seedAccount(env.ctx, owner.userId, profile, 'telegram', 'rt'),
    await seedAccount(env.ctx, owner.userId, profile, 'facebook', 'rf'),
  ];
  const random = rng(11);
  await storeShuffled(accounts[0], conversationsOf(accounts[0], 30, random, seeded), random);
  await storeShuffled(accounts[1], conversationsOf(accounts[1], 20, random, seeded), random);
  // An account of a second profile (the profile filter).
  profileB = await seedProfile(env.ctx, owner.userId, 'B');
  accounts.push(await seedAccount(env.ctx, owner.userId, profileB, 'telegram', 'rb'));
  await storeShuffled(accounts[2], conversationsOf(accounts[2], 12, random, seeded), random);
  await storeShuffled(accounts[1], oldConversations(accounts[1], seeded), random);
  await storeShuffled(accounts[2], oldConversations(accounts[2], seeded), random);
  // Another tenant's conversations on the same days (never counted for the owner).
  const other = await env.createUser({ addons: ['analytics', 'inbox'] });
  const otherAccount = await seedAccount(
    env.ctx,
    other.userId,
    await seedProfile(env.ctx, other.userId),
    'telegram',
    'ro',
  );
  await storeShuffled(otherAccount, conversationsOf(otherAccount, 15, random, []), random);
});
afterAll(async () => env?.close());

const RANGES: [number, number][] = [
  [0, 19],
  [0, 0],
  [5, 5],
  [3, 9],
  [10, 19],
  [7, 12],
  [19, 19],
];

/** An item of GET /v1/analytics/inbox/conversations (the fields read here). */
interface ListedItem {
  conversationId: string;
  received: number;
  totalMessages: number;
  firstMessageAt: string;
  lastMessageAt: string;
}

interface Totals {
  received: number;
  sent: number;
  first: string;
  last: string;
}

function expected(from: string, to: string, f: { accountId?: string; profileId?: string; source?: string } = {}) {
  const kept = seeded.filter(
    (m) =>
      day(m.sentAt) >= from &&
      day(m.sentAt) <= to &&
      (!f.accountId || m.account.account_id === f.accountId) &&
      (!f.profileId || m.account.profile_id === f.profileId) &&
      (!f.source || m.source === f.source),
  );
  const conversations = new Map<string, Totals>();
  const byAccount = new Map<string, Set<string>>();
  for (const m of kept) {
    const at = m.sentAt.toISOString();
    const c = conversations.get(m.conversationId) ?? { received: 0, sent: 0, first: at, last: at };
    if (m.direction === 'incoming') c.received++;
    else c.sent++;
    if (at < c.first) c.first = at;
    if (at > c.last) c.last = at;
    conversations.set(m.conversationId, c);
    byAccount.set(m.account.account_id, (byAccount.get(m.account.account_id) ?? new Set()).add(m.conversationId));
  }
  return { kept, conversations, byAccount };
}

async function checkEverything(label: string) {
  const client = await zernio(env, owner.apiKey);
  for (const [a, b] of RANGES) {
    const from = dayAt(a);
    const to = dayAt(b);
    for (const f of [{}, { source: 'api' }, { source: 'platform' }, { accountId: accounts[1].account_id }]) {
      const what = `${label} ${from}..${to} ${JSON.stringify(f)}`;
      const want = expected(from, to, f);
      const volume = body(await client.inboxanalytics.getInboxVolume({ query: { fromDate: from, toDate: to, ...f } }));
      expect(volume.summary.uniqueConversations, what).toBe(want.conversations.size);
      expect(volume.summary.received + volume.summary.sent, what).toBe(want.kept.length);

      const list = body(
        await client.inboxanalytics.listInboxConversationAnalytics({
          query: { fromDate: from, toDate: to, ...f, limit: 100 },
        }),
      );
      expect(list.pagination.total, what).toBe(want.conversations.size);
      const lastDesc = [...want.conversations.values()].map((c) => c.last).sort((x, y) => (x < y ? 1 : -1));
      expect(
        (list.items as ListedItem[]).map((i) => i.lastMessageAt),
        what,
      ).toEqual(lastDesc);
      for (const item of list.items as ListedItem[]) {
        const c = want.conversations.get(item.conversationId)!;
        expect(item, `${what} ${item.conversationId}`).toMatchObject({
          received: c.received,
          sent: c.sent,
          totalMessages: c.received + c.sent,
          firstMessageAt: c.first,
          lastMessageAt: c.last,
        });
      }
    }
    const top = body(await client.inboxanalytics.getInboxTopAccounts({ query: { fromDate: from, toDate: to } }));
    const want = expected(from, to);
    for (const row of top.accounts)
      expect(row.conversations, `${label} ${from}..${to} ${row.accountId}`).toBe(
        want.byAccount.get(row.accountId)?.size ?? 0,
      );
  }
}

/** Each sort and order, paged in pages of 7: the pages put together are the whole sorted list. */
async function checkSorts(label: string) {
  const client = await zernio(env, owner.apiKey);
  const from = dayAt(4);
  const to = dayAt(15);
  const want = [...expected(from, to).conversations.values()];
  const keys = {
    lastMessageAt: (c: Totals) => c.last,
    firstMessageAt: (c: Totals) => c.first,
    totalMessages: (c: Totals) => c.received + c.sent,
    received: (c: Totals) => c.received,
  } as const;
  for (const [sortBy, key] of Object.entries(keys) as [keyof typeof keys, (c: Totals) => string | number][]) {
    for (const order of ['asc', 'desc'] as const) {
      const got: (string | number)[] = [];
      for (let page = 1; page <= Math.ceil(want.length / 7); page++) {
        const res = body(
          await client.inboxanalytics.listInboxConversationAnalytics({
            query: { fromDate: from, toDate: to, sortBy, order, limit: 7, page },
          }),
        );
        got.push(
          ...(res.items as ListedItem[]).map((i) =>
            sortBy === 'lastMessageAt'
              ? i.lastMessageAt
              : sortBy === 'firstMessageAt'
                ? i.firstMessageAt
                : sortBy === 'received'
                  ? i.received
                  : i.totalMessages,
          ),
        );
      }
      const sorted = want.map(key).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
      expect(got, `${label} ${sortBy} ${order}`).toEqual(order === 'asc' ? sorted : sorted.reverse());
    }
  }
}

/**
 * Sorted by a count (issue #33): over a range that holds every day of the tenant, a range that cuts few
 * conversations (the old ones), one that cuts many, and one of few conversations, with each filter, in
 * pages of 8 (so at growing offsets) and one page past the end: the same conversations in the same order
 * as computed here from the messages, ties by Herald's conversation id in the sort's direction.
 */
async function checkCountSorts(label: string) {
  const client = await zernio(env, owner.apiKey);
  const herald = new Map(
    (
      await env.ctx.db.kysely
        .selectFrom('inbox_conversation')
        .select(['conversation_id', 'platform_conversation_id'])
        .where('tenant_id', '=', owner.userId)
        .execute()
    ).map((r) => [r.platform_conversation_id, r.conversation_id]),
  );
  const keys = {
    totalMessages: (c: Totals) => c.received + c.sent,
    received: (c: Totals) => c.received,
    sent: (c: Totals) => c.sent,
  } as const;
  const filters = [
    {},
    { accountId: accounts[1].account_id },
    { profileId: profileB },
    { source: 'api', accountId: accounts[2].account_id },
  ];
  for (const [a, b] of [
    [-30, 25],
    [0, 19],
    [4, 15],
    [19, 19],
  ] as const) {
    const from = dayAt(a);
    const to = dayAt(b);
    for (const f of filters) {
      // A minute later each time: these pages are more requests than the rate limit allows in one.
      env.clock.advance(61_000);
      const want = expected(from, to, f).conversations;
      for (const [sortBy, key] of Object.entries(keys) as [keyof typeof keys, (c: Totals) => number][]) {
        for (const order of ['asc', 'desc'] as const) {
          const what = `${label} ${from}..${to} ${JSON.stringify(f)} ${sortBy} ${order}`;
          const sign = order === 'asc' ? 1 : -1;
          const sorted = [...want.entries()]
            .map(([id, c]) => ({ id: herald.get(id)!, count: key(c) }))
            .sort((x, y) => sign * (x.count - y.count || (x.id < y.id ? -1 : 1)));
          const got: { id: string; count: number }[] = [];
          for (let page = 1; page <= Math.ceil(want.size / 8) + 1; page++) {
            const res = body(
              await client.inboxanalytics.listInboxConversationAnalytics({
                query: { fromDate: from, toDate: to, ...f, sortBy, order, limit: 8, page },
              }),
            );
            expect(res.pagination.total, what).toBe(want.size);
            got.push(
              ...(res.items as (ListedItem & { mongoId: string; sent: number })[]).map((i) => ({
                id: i.mongoId,
                count: sortBy === 'totalMessages' ? i.totalMessages : i[sortBy],
              })),
            );
          }
          expect(got, what).toEqual(sorted);
        }
      }
    }
  }
}

/**
 * The all-time totals the count sorts walk (migration 0370): each conversation's messages per source
 * and all together, and bounds that hold every day of its messages.
 */
async function checkTotals(label: string) {
  const want = new Map<string, { received: number; sent: number; first: string; last: string }>();
  const herald = new Map(
    (
      await env.ctx.db.kysely
        .selectFrom('inbox_conversation')
        .select(['conversation_id', 'platform_conversation_id'])
        .where('tenant_id', '=', owner.userId)
        .execute()
    ).map((r) => [r.platform_conversation_id, r.conversation_id]),
  );
  for (const m of seeded)
    for (const source of [m.source, 'all']) {
      const key = `${herald.get(m.conversationId)} ${source}`;
      const t = want.get(key) ?? { received: 0, sent: 0, first: day(m.sentAt), last: day(m.sentAt) };
      if (m.direction === 'incoming') t.received++;
      else t.sent++;
      if (day(m.sentAt) < t.first) t.first = day(m.sentAt);
      if (day(m.sentAt) > t.last) t.last = day(m.sentAt);
      want.set(key, t);
    }
  const rows = await env.ctx.db.kysely
    .selectFrom('inbox_conversation_total')
    .selectAll()
    .where('tenant_id', '=', owner.userId)
    .execute();
  expect(rows.length, label).toBe(want.size);
  for (const r of rows) {
    const t = want.get(`${r.conversation_id} ${r.source}`);
    const what = `${label} ${r.conversation_id} ${r.source}`;
    expect(t, what).toBeDefined();
    expect([Number(r.received), Number(r.sent), Number(r.total)], what).toEqual([
      t!.received,
      t!.sent,
      t!.received + t!.sent,
    ]);
    expect(r.first_day <= t!.first && r.last_day >= t!.last, what).toBe(true);
  }
}

describe('inbox analytics over conversations of many days', () => {
  it('counts and lists the conversations of every range as the messages say', async () => {
    expect(new Set(seeded.map((m) => day(m.sentAt))).size).toBeGreaterThan(15);
    await checkEverything('stored');
    await checkSorts('stored');
    await checkCountSorts('stored');
    await checkTotals('stored');
  });

  it('reads a range given as date-times with an offset as the UTC days they fall on', async () => {
    const client = await zernio(env, owner.apiKey);
    // 23:30 at UTC-2 on the 3rd is 01:30 UTC on the 4th; 00:30 at UTC+2 on the 10th is 22:30 UTC on the 9th.
    const query = { fromDate: `${dayAt(2)}T23:30:00-02:00`, toDate: `${dayAt(9)}T00:30:00+02:00` };
    const res = body(await client.inboxanalytics.getInboxVolume({ query }));
    expect(res.from).toBe(dayAt(3));
    expect(res.to).toBe(dayAt(8));
    expect(res.summary.uniqueConversations).toBe(expected(dayAt(3), dayAt(8)).conversations.size);
  });

  it('stays exact when messages go, change source, and go with their account', async () => {
    const random = rng(5);
    const db = env.ctx.db.kysely;
    // Whole days of some conversations (a middle one, a first one, a last one), and single messages.
    const doomed = seeded.filter((m) => /-d[02]-/.test(m.messageId) && random() < 0.5);
    for (const m of doomed.slice(0, 40))
      await db.deleteFrom('inbox_message').where('platform_message_id', '=', m.messageId).execute();
    const gone = new Set(doomed.slice(0, 40).map((m) => m.messageId));
    seeded = seeded.filter((m) => !gone.has(m.messageId));
    await checkEverything('after deletes');
    await checkCountSorts('after deletes');
    await checkTotals('after deletes');

    // Outgoing messages marked as sent by the API: their source changes, nothing else.
    for (const m of seeded.filter((x) => x.direction === 'outgoing' && x.source !== 'api').slice(0, 15)) {
      await db
        .updateTable('inbox_message')
        .set({ metadata: JSON.stringify({ source: 'api' }) })
        .where('platform_message_id', '=', m.messageId)
        .execute();
      m.source = 'api';
    }
    await checkEverything('after source changes');
    await checkSorts('after source changes');
    await checkTotals('after source changes');

    await db.deleteFrom('account').where('account_id', '=', accounts[0].account_id).execute();
    seeded = seeded.filter((m) => m.account !== accounts[0]);
    await checkEverything('after the account went');
    await checkCountSorts('after the account went');
    await checkTotals('after the account went');
    // The counts of days that lost their conversations go too, not left as zeros.
    const zeros = await db.selectFrom('inbox_active_day').select('day').where('conversations', '<=', 0).execute();
    expect(zeros).toEqual([]);
    // Nor the totals of conversations that have no message left.
    const empty = await db
      .selectFrom('inbox_conversation_total')
      .select('conversation_id')
      .where('total', '<=', 0)
      .execute();
    expect(empty).toEqual([]);
  });
});
