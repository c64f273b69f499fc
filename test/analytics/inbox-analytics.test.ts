import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestBatch } from '../../src/domain/inbox/ingest.js';
import type { InboundMessage } from '../../src/platforms/types.js';
import type { AccountRow } from '../../src/store/accounts.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { seedAccount, seedProfile } from '../helpers/test-platform-fixtures.js';
import { body, zernio, zernioError } from '../helpers/zernio.js';

/*
 * The seven inbox analytics through @zernio/node over messages stored by the inbox's own ingest: each
 * figure is checked against the same figure computed here from the list of seeded messages.
 */

interface Seeded {
  account: AccountRow;
  conversationId: string;
  direction: 'incoming' | 'outgoing';
  sentAt: Date;
  source: string;
}

let env: TestEnv;
let owner: { userId: string; apiKey: string };
let telegram: AccountRow;
let facebook: AccountRow;
let profileA: string;
const seeded: Seeded[] = [];

/** A small deterministic generator, so the data has no pattern the sums could get right by luck. */
function rng(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

const DAY0 = Date.UTC(2026, 0, 5);

async function seed(account: AccountRow, conversations: number, random: () => number, into: Seeded[]) {
  for (let c = 0; c < conversations; c++) {
    const conversationId = `${account.username}-c${c}`;
    let t = DAY0 + Math.floor(random() * 10) * 86_400_000 + Math.floor(random() * 86_400) * 1000;
    const messages: InboundMessage[] = [];
    const count = 1 + Math.floor(random() * 8);
    for (let m = 0; m < count; m++) {
      const direction = random() < 0.55 ? 'incoming' : 'outgoing';
      const source = direction === 'outgoing' && random() < 0.5 ? 'api' : 'platform';
      const sentAt = new Date(t);
      messages.push({
        conversationId,
        messageId: `${conversationId}-m${m}`,
        direction,
        sender: { id: direction === 'incoming' ? `fan-${c}` : account.platform_user_id, name: `Fan ${c}` },
        participant: { id: `fan-${c}`, name: `Fan ${c}`, username: `fan${c}` },
        text: `message ${m}`,
        sentAt,
        extra: source === 'api' ? { source: 'api' } : {},
      });
      into.push({ account, conversationId, direction, sentAt, source });
      t += Math.floor(random() * 7_200) * 1000 + 1000;
    }
    // Stored newest first, as a poll that lists newest first brings them: replies are computed however
    // the messages arrive.
    await ingestBatch(env.ctx, account, { messages: messages.reverse() });
  }
}

beforeAll(async () => {
  env = await createTestEnv({ now: '2026-01-20T12:00:00Z' });
  owner = await env.createUser({ addons: ['analytics', 'inbox'] });
  profileA = await seedProfile(env.ctx, owner.userId, 'A');
  const profileB = await seedProfile(env.ctx, owner.userId, 'B');
  telegram = await seedAccount(env.ctx, owner.userId, profileA, 'telegram', 'tg');
  facebook = await seedAccount(env.ctx, owner.userId, profileB, 'facebook', 'fb');
  const random = rng(7);
  await seed(telegram, 40, random, seeded);
  await seed(facebook, 25, random, seeded);
  // Another tenant's inbox on the same days: never counted for the owner.
  const other = await env.createUser({ addons: ['analytics', 'inbox'] });
  const otherProfile = await seedProfile(env.ctx, other.userId);
  await seed(await seedAccount(env.ctx, other.userId, otherProfile, 'telegram', 'other'), 20, random, []);
});
afterAll(async () => env?.close());

const RANGE = { fromDate: '2026-01-01', toDate: '2026-01-20' };
const day = (d: Date) => d.toISOString().slice(0, 10);

/** Time to first response, computed here: per conversation, each outgoing message after incoming ones. */
function expectedReplies(messages: Seeded[]): number[] {
  const byConversation = new Map<string, Seeded[]>();
  for (const m of messages) byConversation.set(m.conversationId, [...(byConversation.get(m.conversationId) ?? []), m]);
  const out: number[] = [];
  for (const list of byConversation.values()) {
    let firstUnanswered: Date | null = null;
    for (const m of [...list].sort((a, b) => a.sentAt.getTime() - b.sentAt.getTime())) {
      if (m.direction === 'incoming') firstUnanswered ??= m.sentAt;
      else if (firstUnanswered) {
        out.push(Math.round((m.sentAt.getTime() - firstUnanswered.getTime()) / 1000));
        firstUnanswered = null;
      }
    }
  }
  return out.sort((a, b) => a - b);
}

describe('GET /v1/analytics/inbox/volume', () => {
  it('counts the seeded messages per day and platform, and no other tenant', async () => {
    const client = await zernio(env, owner.apiKey);
    const res = body(await client.inboxanalytics.getInboxVolume({ query: RANGE }));
    const received = seeded.filter((m) => m.direction === 'incoming').length;
    expect(res.summary).toEqual({
      received,
      sent: seeded.length - received,
      read: 0,
      failed: 0,
      uniqueConversations: new Set(seeded.map((m) => m.conversationId)).size,
    });
    expect(res.timeseries).toHaveLength(20);
    for (const row of res.timeseries) {
      const that = seeded.filter((m) => day(m.sentAt) === row.date);
      expect(row.received + row.sent).toBe(that.length);
      expect(row.received).toBe(that.filter((m) => m.direction === 'incoming').length);
    }
    const fb = res.byPlatform.find((p: any) => p.platform === 'facebook');
    expect(fb.received + fb.sent).toBe(seeded.filter((m) => m.account === facebook).length);
  });

  it('narrows by days, account and source', async () => {
    const client = await zernio(env, owner.apiKey);
    const q = { fromDate: '2026-01-07', toDate: '2026-01-09', accountId: telegram.account_id, source: 'api' };
    const res = body(await client.inboxanalytics.getInboxVolume({ query: q }));
    const kept = seeded.filter(
      (m) => m.account === telegram && m.source === 'api' && day(m.sentAt) >= q.fromDate && day(m.sentAt) <= q.toDate,
    );
    expect(kept.length).toBeGreaterThan(0);
    expect(res.summary.sent).toBe(kept.length);
    expect(res.summary.received).toBe(0);
  });

  it('counts only the profiles of a profile-scoped key', async () => {
    const scoped = await env.request(owner.apiKey, 'POST', '/v1/api-keys', {
      name: 'profile A',
      scope: 'profiles',
      profileIds: [profileA],
    });
    const client = await zernio(env, scoped.body.apiKey.key);
    const res = body(await client.inboxanalytics.getInboxVolume({ query: RANGE }));
    expect(res.summary.received + res.summary.sent).toBe(seeded.filter((m) => m.account === telegram).length);
    expect(res.byPlatform.map((p: any) => p.platform)).toEqual(['telegram']);
  });

  it('refuses a missing or malformed date, a range over 365 days and an unknown source with a 400', async () => {
    const client = await zernio(env, owner.apiKey);
    for (const query of [
      { toDate: '2026-01-10' },
      { fromDate: 'yesterday' },
      { fromDate: '2026-02-30' },
      { fromDate: '2024-01-01', toDate: '2026-01-10' },
      { fromDate: '2026-01-10', toDate: '2026-01-01' },
      { fromDate: '2026-01-01', source: 'pigeon' },
    ]) {
      const err = await zernioError(client.inboxanalytics.getInboxVolume({ query: query as any }));
      expect(err.statusCode, JSON.stringify(query)).toBe(400);
    }
  });

  it('answers 402 without the analytics add-on', async () => {
    const { apiKey } = await env.createUser({ addons: ['inbox'] });
    const err = await zernioError((await zernio(env, apiKey)).inboxanalytics.getInboxVolume({ query: RANGE }));
    expect(err.statusCode).toBe(402);
  });
});

describe('GET /v1/analytics/inbox/heatmap', () => {
  it('puts each message in its ISO weekday and UTC hour', async () => {
    const client = await zernio(env, owner.apiKey);
    const res = body(await client.inboxanalytics.getInboxHeatmap({ query: { ...RANGE, action: 'message.received' } }));
    const expected = new Map<string, number>();
    for (const m of seeded.filter((x) => x.direction === 'incoming')) {
      const key = `${((m.sentAt.getUTCDay() + 6) % 7) + 1}:${m.sentAt.getUTCHours()}`;
      expected.set(key, (expected.get(key) ?? 0) + 1);
    }
    expect(new Map(res.buckets.map((b: any) => [`${b.dow}:${b.hour}`, b.received]))).toEqual(expected);
    expect(res.buckets.every((b: any) => b.sent === 0)).toBe(true);
  });
});

describe('GET /v1/analytics/inbox/source-breakdown', () => {
  it('splits sent messages between the API and the platform', async () => {
    const client = await zernio(env, owner.apiKey);
    const res = body(await client.inboxanalytics.getInboxSourceBreakdown({ query: RANGE }));
    const api = res.sources.find((s: any) => s.source === 'api');
    expect(api.sent).toBe(seeded.filter((m) => m.source === 'api').length);
    expect(api.received).toBe(0);
    const platform = res.sources.find((s: any) => s.source === 'platform');
    expect(platform.received).toBe(seeded.filter((m) => m.direction === 'incoming').length);
    expect(api.byPlatform.reduce((s: number, p: any) => s + p.sent, 0)).toBe(api.sent);
  });
});

describe('GET /v1/analytics/inbox/response-time', () => {
  it('pairs each reply with the first unanswered incoming message', async () => {
    const client = await zernio(env, owner.apiKey);
    const res = body(await client.inboxanalytics.getInboxResponseTime({ query: RANGE }));
    const replies = expectedReplies(seeded);
    expect(res.summary.sampleSize).toBe(replies.length);
    const rank = (p: number) => replies[Math.ceil(p * replies.length) - 1];
    // Exact below 1,000 seconds, within 1% above (three significant digits).
    for (const [got, want] of [
      [res.summary.medianSeconds, rank(0.5)],
      [res.summary.p90Seconds, rank(0.9)],
    ])
      expect(Math.abs(got - want)).toBeLessThanOrEqual(Math.max(1, want * 0.01));
    expect(res.summary.fastestSeconds).toBe(replies[0]);
    expect(res.summary.slowestSeconds).toBe(replies.at(-1));
    expect(res.histogram.reduce((s: number, h: any) => s + h.count, 0)).toBe(replies.length);
    expect(res.histogram[0].count).toBe(replies.filter((s) => s < 60).length);
  });

  it('recomputes the reply after a message that arrives late or goes', async () => {
    const account = telegram;
    const base = Date.UTC(2026, 0, 12, 9);
    const msg = (id: string, direction: 'incoming' | 'outgoing', s: number): InboundMessage => ({
      conversationId: 'late-conv',
      messageId: id,
      direction,
      sender: { id: direction === 'incoming' ? 'fan-late' : account.platform_user_id },
      text: id,
      sentAt: new Date(base + s * 1000),
    });
    const q = { fromDate: '2026-01-12', toDate: '2026-01-12', accountId: account.account_id };
    const client = await zernio(env, owner.apiKey);
    const before = body(await client.inboxanalytics.getInboxResponseTime({ query: q })).summary.sampleSize;
    await ingestBatch(env.ctx, account, { messages: [msg('l2', 'incoming', 100), msg('l3', 'outgoing', 130)] });
    const one = body(await client.inboxanalytics.getInboxResponseTime({ query: q }));
    expect(one.summary.sampleSize).toBe(before + 1);
    // An older incoming message the sync brings later makes the reply slower.
    await ingestBatch(env.ctx, account, { messages: [msg('l1', 'incoming', 40)] });
    const conv = body(
      await client.inboxanalytics.getInboxConversationAnalytics({
        path: { conversationId: 'late-conv' },
        query: q,
      }),
    );
    expect(conv.summary).toMatchObject({ received: 2, sent: 1, totalMessages: 3 });
    const slow = body(await client.inboxanalytics.getInboxResponseTime({ query: q }));
    expect(slow.summary.sampleSize).toBe(before + 1);
    expect(slow.summary.slowestSeconds).toBeGreaterThanOrEqual(90);
    // A deleted message takes its share away (whatever deletes it).
    await env.ctx.db.kysely.deleteFrom('inbox_message').where('conversation_id', '=', conv.mongoId).execute();
    const after = body(await client.inboxanalytics.getInboxResponseTime({ query: q }));
    expect(after.summary.sampleSize).toBe(before);
    const gone = body(
      await client.inboxanalytics.getInboxConversationAnalytics({
        path: { conversationId: conv.mongoId },
        query: q,
      }),
    );
    expect(gone.summary.totalMessages).toBe(0);
  });
});

describe('GET /v1/analytics/inbox/top-accounts', () => {
  it('ranks the accounts by messages with their conversations and replies', async () => {
    const client = await zernio(env, owner.apiKey);
    const res = body(await client.inboxanalytics.getInboxTopAccounts({ query: RANGE }));
    expect(res.accounts.map((a: any) => a.accountId)).toEqual([telegram.account_id, facebook.account_id]);
    const tg = res.accounts[0];
    const mine = seeded.filter((m) => m.account === telegram);
    expect(tg).toMatchObject({
      platform: 'telegram',
      username: 'tg',
      total: mine.length,
      conversations: new Set(mine.map((m) => m.conversationId)).size,
      repliedCount: expectedReplies(mine).length,
    });
    const limited = body(await client.inboxanalytics.getInboxTopAccounts({ query: { ...RANGE, limit: 1 } }));
    expect(limited.accounts).toHaveLength(1);
  });
});

describe('GET /v1/analytics/inbox/conversations', () => {
  it('lists the conversations with their totals, sorted and paged', async () => {
    const client = await zernio(env, owner.apiKey);
    const query = { ...RANGE, sortBy: 'totalMessages' as const, order: 'desc' as const, limit: 10, page: 2 };
    const res = body(await client.inboxanalytics.listInboxConversationAnalytics({ query }));
    const totals = new Map<string, number>();
    for (const m of seeded) totals.set(m.conversationId, (totals.get(m.conversationId) ?? 0) + 1);
    expect(res.pagination).toEqual({ page: 2, limit: 10, total: totals.size, totalPages: 7, hasMore: true });
    const sorted = [...totals.values()].sort((a, b) => b - a);
    expect(res.items.map((i: any) => i.totalMessages)).toEqual(sorted.slice(10, 20));
    const item = res.items[0];
    expect(item.totalMessages).toBe(totals.get(item.conversationId));
    expect(item.participantName).toMatch(/^Fan /);
    expect(item.mongoId).toMatch(/^[0-9a-f]{24}$/);
  });
});

describe('GET /v1/analytics/inbox/conversations/{conversationId}', () => {
  it("reads one conversation by either id, and not another tenant's", async () => {
    const client = await zernio(env, owner.apiKey);
    const target = seeded[0].conversationId;
    const mine = seeded.filter((m) => m.conversationId === target);
    const res = body(
      await client.inboxanalytics.getInboxConversationAnalytics({ path: { conversationId: target }, query: RANGE }),
    );
    expect(res.summary.totalMessages).toBe(mine.length);
    expect(res.bySource.reduce((s: number, b: any) => s + b.count, 0)).toBe(mine.length);
    const byMongo = body(
      await client.inboxanalytics.getInboxConversationAnalytics({
        path: { conversationId: res.mongoId },
        query: RANGE,
      }),
    );
    expect(byMongo.summary).toEqual(res.summary);
    const err = await zernioError(
      client.inboxanalytics.getInboxConversationAnalytics({ path: { conversationId: 'other-c0' }, query: RANGE }),
    );
    expect(err.statusCode).toBe(404);
  });
});
