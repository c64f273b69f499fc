import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig, type Config } from '../src/config.js';
import { createContext, type AppContext } from '../src/context.js';
import { ingestBatch } from '../src/domain/inbox/ingest.js';
import { createOwner } from '../src/domain/users.js';
import { newId } from '../src/lib/ids.js';
import type { InboundComment } from '../src/platforms/types.js';
import type { AccountRow } from '../src/store/accounts.js';
import { addInboxAnalytics } from '../src/store/inbox-analytics-keep.js';
import { startTestPlatform } from '../test/helpers/test-platform.js';
import { seedAccount, seedPosts, seedProfile } from '../test/helpers/test-platform-fixtures.js';
import { startEngineWorker, stopGracefully, waitUntil } from '../test/helpers/test-platform-processes.js';
import { hasWrk, measureBare, part, startHerald, wrk, type BenchResult } from './lib.js';

/*
 * Inbox benchmarks (SQLite):
 * 1. 10,000 inbound comments across 50 accounts through the real ingest path (ingestBatch: dedupe on the
 *    platform id, the row, its comment.received event and the event's webhook delivery job), in pages of
 *    20 as a poll brings them: comments per second, against a baseline of the same rows written with plain
 *    prepared INSERTs (what storing alone costs). Meanwhile a worker process publishes 300 scheduled posts
 *    falling due through the ingest: their p99 lateness.
 * 2. GET /v1/inbox/conversations with 1,000,000 stored messages (100,000 conversations over 50 accounts,
 *    BENCH_INBOX_CONVERSATIONS to change; the rows seeded in SQL, the analytics sums by the store's
 *    insert path, as the ingest writes them, in transactions of 50,000 messages: the time they take):
 *    p99 and throughput with wrk, against bare Fastify.
 * 3. The seven inbox analytics (GET /v1/analytics/inbox/*) over the same 1,000,000 messages and a
 *    365-day range: p95 with wrk (4 connections), twice. Goal p95 < 100 ms each. The conversations
 *    sorted by a count also ascending, and over a range that starts a day after the first message, in
 *    both orders (the range no longer holds every day, so the listing cannot read the page from the
 *    all-time totals alone).
 */

const ACCOUNTS = 50;
const COMMENTS = 10_000;
const PAGE = 20;
const POSTS = 300;
/** Conversations of 10 messages seeded for the listing and the analytics (BENCH_INBOX_CONVERSATIONS). */
const CONVERSATIONS = Number(process.env.BENCH_INBOX_CONVERSATIONS ?? 100_000);
const MESSAGES = (CONVERSATIONS * 10).toLocaleString('en-US');

function tempConfig(): Config {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-inbox-'));
  return loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    SECRET_KEY: 'bench-secret-bench-secret-bench-secret-12',
  });
}

/** A webhook receiver that answers 200 to everything (deliveries succeed, nothing retries). */
async function sink(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

async function seedInboxOwner(ctx: AppContext, platform: 'telegram') {
  const { user, apiKey } = await createOwner(
    ctx.db,
    { email: 'inbox@example.test', plan: 'unlimited', addons: ['inbox', 'analytics'] },
    ctx.clock.now(),
  );
  const profileId = await seedProfile(ctx, user.user_id);
  const accounts: AccountRow[] = [];
  for (let i = 0; i < ACCOUNTS; i++)
    accounts.push(await seedAccount(ctx, user.user_id, profileId, platform, `inbox${i}`));
  return { user, apiKey, profileId, accounts };
}

const comment = (account: number, i: number): InboundComment => ({
  postId: `post-${account}-${i % 10}`,
  commentId: `c-${account}-${i}`,
  parentId: null,
  direction: 'incoming',
  author: { id: `fan-${i % 97}`, name: `Fan ${i % 97}`, username: `fan${i % 97}` },
  text: `Comment ${i} on account ${account}`,
  createdAt: new Date(Date.UTC(2026, 0, 1) + i * 1000),
  post: { content: `Post ${i % 10}` },
});

/** The same 10,000 rows with plain prepared INSERTs in transactions of PAGE (no dedupe, event or delivery). */
function baselineInsert(ctx: AppContext, tenantId: string, accounts: AccountRow[]): number {
  const db = ctx.db.sqlite!;
  const iso = new Date().toISOString();
  const postIds = new Map<string, string>();
  const post = db.prepare(
    `INSERT INTO inbox_post (inbox_post_id, tenant_id, account_id, platform, platform_post_id, content, comment_count, like_count, last_comment_at, metadata, created_at)
     VALUES (?, ?, ?, 'telegram', ?, ?, 0, 0, ?, '{}', ?)`,
  );
  const row = db.prepare(
    `INSERT INTO inbox_comment (comment_id, tenant_id, account_id, inbox_post_id, platform_comment_id, direction, author_id, author_name, author_username, text, like_count, is_hidden, is_liked, metadata, commented_at, created_at)
     VALUES (?, ?, ?, ?, ?, 'incoming', ?, ?, ?, ?, 0, 0, 0, '{}', ?, ?)`,
  );
  const page = db.transaction((a: number, from: number) => {
    for (let i = from; i < from + PAGE; i++) {
      const c = comment(a, i);
      const key = `${a}:${c.postId}`;
      let postId = postIds.get(key);
      if (!postId) {
        postId = newId();
        postIds.set(key, postId);
        post.run(postId, tenantId, accounts[a].account_id, `base-${c.postId}`, c.post?.content ?? null, iso, iso);
      }
      row.run(
        newId(),
        tenantId,
        accounts[a].account_id,
        postId,
        `base-${c.commentId}`,
        c.author.id,
        c.author.name,
        c.author.username,
        c.text,
        c.createdAt.toISOString(),
        iso,
      );
    }
  });
  const perAccount = COMMENTS / ACCOUNTS;
  const started = performance.now();
  for (let from = 0; from < perAccount; from += PAGE) for (let a = 0; a < ACCOUNTS; a++) page(a, from);
  return COMMENTS / ((performance.now() - started) / 1000);
}

async function ingestWhilePublishing(): Promise<BenchResult[]> {
  const config = tempConfig();
  const ctx = await createContext(config, { log: pino({ level: 'silent' }) });
  const sim = await startTestPlatform();
  const hook = await sink();
  try {
    const { user, accounts, profileId } = await seedInboxOwner(ctx, 'telegram');
    const iso = new Date().toISOString();
    await ctx.db.kysely
      .insertInto('webhook')
      .values({
        webhook_id: newId(),
        tenant_id: user.user_id,
        created_by: user.user_id,
        name: 'inbox',
        url: hook.url,
        secret: null,
        events: JSON.stringify(['comment.received']),
        is_active: 1,
        custom_headers: '{}',
        failure_count: 0,
        last_fired_at: null,
        created_at: iso,
        updated_at: iso,
      } as any)
      .execute();
    const publisher = await seedAccount(ctx, user.user_id, profileId, 'bluesky');
    // Posts falling due every 40 ms from a few seconds ahead: through the ingest that starts then.
    const dueAt = new Date(Math.ceil((Date.now() + 8_000) / 1000) * 1000);
    await seedPosts(
      ctx,
      Array.from({ length: POSTS }, (_, i) => ({
        tenantId: user.user_id,
        content: `due ${i}`,
        targets: [{ account: publisher }],
        scheduledFor: new Date(dueAt.getTime() + i * 40),
      })),
    );
    const worker = startEngineWorker(config, sim.url, 'bench-inbox', {
      WORKER_CONCURRENCY: '16',
      LOG_LEVEL: 'error',
      WORKER_LEASE_MS: '120000',
      WEBHOOK_ALLOW_INSECURE: '1',
    });
    await worker.ready;
    await new Promise((r) => setTimeout(r, Math.max(0, dueAt.getTime() - Date.now())));

    const perAccount = COMMENTS / ACCOUNTS;
    let stored = 0;
    const started = performance.now();
    for (let from = 0; from < perAccount; from += PAGE) {
      for (let a = 0; a < ACCOUNTS; a++) {
        const batch = { comments: Array.from({ length: PAGE }, (_, k) => comment(a, from + k)) };
        stored += (await ingestBatch(ctx, accounts[a], batch)).comments;
      }
    }
    const ingestSeconds = (performance.now() - started) / 1000;
    // A second pass of the same pages: nothing new, nothing emitted.
    let again = 0;
    for (let a = 0; a < ACCOUNTS; a++)
      again += (
        await ingestBatch(ctx, accounts[a], { comments: Array.from({ length: PAGE }, (_, k) => comment(a, k)) })
      ).comments;

    await waitUntil(async () => sim.posts.length >= POSTS, 120_000, 'the scheduled posts');
    await stopGracefully(worker);
    const events = Number(
      (
        await ctx.db.kysely
          .selectFrom('event')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('type', '=', 'comment.received')
          .executeTakeFirstOrThrow()
      ).n,
    );
    const deliveries =
      Number(
        (
          await ctx.db.kysely
            .selectFrom('job')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('key', 'like', 'webhook:%')
            .executeTakeFirstOrThrow()
        ).n,
      ) +
      Number(
        (
          await ctx.db.kysely
            .selectFrom('webhook_log')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const targets = await ctx.db.kysely
      .selectFrom('post_target')
      .innerJoin('post', 'post.post_id', 'post_target.post_id')
      .select(['post.scheduled_for', 'post_target.published_at'])
      .execute();
    const lateness = targets
      .map((t) => new Date(t.published_at!).getTime() - new Date(t.scheduled_for!).getTime())
      .sort((x, y) => x - y);
    const p99 = lateness[Math.ceil(lateness.length * 0.99) - 1] / 1000;
    const rate = stored / ingestSeconds;
    const baseline = baselineInsert(ctx, user.user_id, accounts);
    return [
      { name: 'inbox ingest: 10,000 comments over 50 accounts (pages of 20)', value: Math.round(rate), unit: 'c/s' },
      { name: 'baseline: the same rows, plain INSERTs', value: Math.round(baseline), unit: 'c/s' },
      { name: 'inbox ingest / baseline', value: Number((rate / baseline).toFixed(3)), unit: 'ratio' },
      {
        name: 'inbox ingest: comment.received events (a second pass adds 0)',
        value: events,
        unit: '',
        goal: '10000',
        pass: events === COMMENTS && again === 0,
      },
      {
        name: 'inbox ingest: webhook deliveries (queued or sent)',
        value: deliveries,
        unit: '',
        goal: '>= 10000',
        pass: deliveries >= COMMENTS,
      },
      {
        name: 'scheduled posts during the ingest: p99 lateness',
        value: Number(p99.toFixed(3)),
        unit: 's',
        goal: '< 1 s',
        pass: p99 < 1,
      },
    ];
  } finally {
    await hook.close();
    await sim.close();
    await ctx.close();
    fs.rmSync(config.dataDir, { recursive: true, force: true });
  }
}

/** `conversations` of `perConversation` messages each over the accounts, in big prepared-statement transactions. */
async function seedMessages(
  ctx: AppContext,
  tenantId: string,
  accounts: AccountRow[],
  conversations: number,
  perConversation: number,
): Promise<void> {
  const db = ctx.db.sqlite!;
  const iso = new Date().toISOString();
  const base = Date.UTC(2025, 0, 1);
  const conv = db.prepare(
    `INSERT INTO inbox_conversation (conversation_id, tenant_id, account_id, platform, platform_conversation_id, participant_id, participant_name, participant_username, status, unread_count, last_message, last_message_at, metadata, created_at, updated_at)
     VALUES (?, ?, ?, 'telegram', ?, ?, ?, ?, 'active', 1, ?, ?, '{}', ?, ?)`,
  );
  const msg = db.prepare(
    `INSERT INTO inbox_message (message_id, tenant_id, account_id, conversation_id, platform_message_id, direction, sender_id, sender_name, text, attachments, metadata, sent_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '[]', '{}', ?, ?)`,
  );
  const batch = (from: number, to: number, ids: string[]) => {
    for (let c = from; c < to; c++) {
      const account = accounts[c % accounts.length];
      const id = newId();
      const last = new Date(base + c * 60_000 + perConversation * 1000).toISOString();
      conv.run(
        id,
        tenantId,
        account.account_id,
        String(1_000_000 + c),
        `p${c}`,
        `Person ${c}`,
        `person${c}`,
        `message ${perConversation - 1}`,
        last,
        iso,
        iso,
      );
      for (let m = 0; m < perConversation; m++) {
        ids.push(newId());
        msg.run(
          ids[ids.length - 1],
          tenantId,
          account.account_id,
          id,
          String(m + 1),
          m % 2 ? 'outgoing' : 'incoming',
          m % 2 ? account.platform_user_id : `p${c}`,
          null,
          `message ${m}`,
          new Date(base + c * 60_000 + m * 1000).toISOString(),
          iso,
        );
      }
    }
  };
  // Each transaction as an ingest's: the rows, then the analytics sums of what it stored (the store's
  // insert path, which the inbox's ingest calls once per batch).
  for (let c = 0; c < conversations; c += 5_000)
    await ctx.db.transaction(async (tx) => {
      const ids: string[] = [];
      batch(c, Math.min(conversations, c + 5_000), ids);
      await addInboxAnalytics(tx, ids);
    });
}

async function listWithAMillion(): Promise<BenchResult[]> {
  if (!hasWrk()) throw new Error('wrk is not installed (apt-get install -y wrk)');
  const bare = await measureBare();
  const config = tempConfig();
  const ctx = await createContext(config, { log: pino({ level: 'silent' }) });
  const { user, apiKey, accounts } = await seedInboxOwner(ctx, 'telegram');
  const seedStart = performance.now();
  await seedMessages(ctx, user.user_id, accounts, CONVERSATIONS, 10);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  ctx.db.sqlite!.exec('ANALYZE');
  await ctx.close();
  // The API alone (no worker): the figure is the listing's. A bot token configures Telegram's adapter.
  const server = await startHerald(
    {
      DATA_DIR: config.dataDir,
      SECRET_KEY: config.secretKey!,
      HERALD_ROLE: 'api',
      TELEGRAM_BOT_TOKEN: '1000001:bench_token_bench_token_bench',
    },
    { startTimeoutMs: 300_000 },
  );
  try {
    const headers = { authorization: `Bearer ${apiKey}` };
    const first = await fetch(`${server.url}/v1/inbox/conversations`, { headers });
    const body = (await first.json()) as { data?: unknown[] };
    if (first.status !== 200 || body.data?.length !== 50)
      throw new Error(
        `GET /v1/inbox/conversations answered ${first.status} with ${body.data?.length ?? 0} conversations`,
      );
    await wrk({ url: `${server.url}/v1/inbox/conversations`, headers, durationSec: 2 });
    const list = await wrk({ url: `${server.url}/v1/inbox/conversations`, headers, connections: 10 });
    if (list.non2xx > 0) throw new Error(`${list.non2xx} non-2xx answers to GET /v1/inbox/conversations`);
    const analytics = await measureInboxAnalytics(server.url, headers, bare.rps);
    return [
      {
        name: `seeding ${MESSAGES} messages (rows in SQL, sums by the store)`,
        value: Number(seedSeconds.toFixed(1)),
        unit: 's',
      },
      { name: 'bare fastify GET /v1/profiles', value: Math.round(bare.rps), unit: 'req/s' },
      { name: `GET /v1/inbox/conversations (${MESSAGES} messages)`, value: Math.round(list.rps), unit: 'req/s' },
      { name: 'GET /v1/inbox/conversations / bare', value: Number((list.rps / bare.rps).toFixed(3)), unit: 'ratio' },
      {
        name: 'GET /v1/inbox/conversations p99 (10 connections)',
        value: Number(list.p99Ms.toFixed(2)),
        unit: 'ms',
        goal: '< 50 ms',
        pass: list.p99Ms < 50,
      },
      ...analytics,
    ];
  } finally {
    await server.stop();
    fs.rmSync(config.dataDir, { recursive: true, force: true });
  }
}

const RANGE = 'fromDate=2025-01-01&toDate=2025-12-31';

/** The seven inbox analytics over the seeded year: each answer checked once, then p95 twice with wrk. */
async function measureInboxAnalytics(
  baseUrl: string,
  headers: Record<string, string>,
  bareRps: number,
): Promise<BenchResult[]> {
  const list = await fetch(`${baseUrl}/v1/analytics/inbox/conversations?${RANGE}&limit=5`, { headers });
  const listed = (await list.json()) as { items?: { mongoId: string }[]; pagination?: { total: number } };
  if (list.status !== 200 || listed.pagination?.total !== CONVERSATIONS)
    throw new Error(
      `the conversation analytics answered ${list.status} with ${listed.pagination?.total} conversations`,
    );
  const endpoints = [
    'volume',
    'heatmap',
    'source-breakdown',
    'response-time',
    'top-accounts',
    'conversations',
    'conversations?sortBy=totalMessages&page=20&limit=50&',
    'conversations?sortBy=totalMessages&order=asc&page=20&limit=50&',
    'conversations?sortBy=received&page=20&limit=50&fromDate=2025-01-02&toDate=2025-12-31',
    'conversations?sortBy=sent&order=asc&page=20&limit=50&fromDate=2025-01-02&toDate=2025-12-31',
    `conversations/${listed.items![0].mongoId}`,
  ].map((p) =>
    p.endsWith('&')
      ? `/v1/analytics/inbox/${p}${RANGE}`
      : p.includes('fromDate')
        ? `/v1/analytics/inbox/${p}`
        : `/v1/analytics/inbox/${p}?${RANGE}`,
  );
  const volume = (await (await fetch(`${baseUrl}${endpoints[0]}`, { headers })).json()) as {
    summary?: { received: number; sent: number };
  };
  if ((volume.summary?.received ?? 0) + (volume.summary?.sent ?? 0) !== CONVERSATIONS * 10)
    throw new Error(`the inbox volume counted ${JSON.stringify(volume.summary)}`);
  const results: BenchResult[] = [];
  for (const path of endpoints) {
    const opts = { url: `${baseUrl}${path}`, headers, connections: 4, timeoutSec: 30 };
    await wrk({ ...opts, durationSec: 2 });
    // Twice: the machine is shared, so one figure alone says little.
    for (const round of [1, 2]) {
      const r = await wrk({ ...opts, durationSec: 6 });
      if (r.non2xx > 0) throw new Error(`${r.non2xx} non-2xx answers to ${path}`);
      results.push({
        name: `${round === 1 ? `GET ${path.replace(`?${RANGE}`, '').replace(RANGE, '')}` : '  again'} p95 (p99 ${r.p99Ms.toFixed(0)} ms, ${r.requests} req, / bare ${(r.rps / bareRps).toFixed(4)})`,
        value: Number(r.p95Ms.toFixed(1)),
        unit: 'ms',
        goal: '< 100 ms',
        pass: r.requests >= 10 && r.p95Ms < 100,
      });
    }
  }
  return results;
}

export default async function inboxBench(): Promise<BenchResult[]> {
  const results = process.env.BENCH_INBOX_SKIP_INGEST ? [] : await part('inbox ingest', ingestWhilePublishing);
  if (!process.env.BENCH_INBOX_SKIP_LIST) results.push(...(await part('inbox listing', listWithAMillion)));
  return results;
}
