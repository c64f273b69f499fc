import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createContext, type AppContext } from '../src/context.js';
import { createWebhook } from '../src/domain/webhooks/settings.js';
import { createOwner } from '../src/domain/users.js';
import type { Principal } from '../src/domain/principal.js';
import { dropPostgresSchema } from '../src/store/db.js';
import { createWorker } from '../src/worker.js';
import type { BenchResult } from './lib.js';

/**
 * Webhook delivery, in one process with the real job runner loop (default WORKER_POLL_MS) on SQLite, or
 * on PostgreSQL when BENCH_DATABASE_URL is set, to a receiver on loopback:
 * - deliveries per second: a burst of events, each fanned out to one webhook, until all have arrived;
 * - latency: events emitted one at a time (as the publish task does when a post goes out), from the
 *   event's commit to its request arriving at the receiver. Goal: p95 < 1 s.
 */
const BURST = 2000;
const TRICKLE = 150;
const TRICKLE_GAP_MS = 40;

interface Receiver {
  url: string;
  arrivals: Map<string, number>;
  waitFor(count: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  let waiter: { count: number; resolve: () => void } | null = null;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (!arrivals.has(body.id)) arrivals.set(body.id, at);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      if (waiter && arrivals.size >= waiter.count) waiter.resolve();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    waitFor(count, timeoutMs) {
      if (arrivals.size >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${arrivals.size} of ${count} deliveries arrived`)),
          timeoutMs,
        );
        waiter = {
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function emit(ctx: AppContext, tenantId: string, n: number): Promise<{ id: string; committedAt: number }> {
  const event = await ctx.db.transaction((tx) =>
    ctx.events.emit(
      tx,
      tenantId,
      'post.published',
      { post: { id: `bench-${n}`, content: 'benchmark', status: 'published', platforms: [] } },
      ctx.clock.now(),
    ),
  );
  return { id: event.id, committedAt: performance.now() };
}

export default async function (): Promise<BenchResult[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-webhooks-'));
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const schema = `bench_webhooks_${process.pid}`;
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    SECRET_KEY: 'bench-secret-bench-secret-bench-secret-00',
    WEBHOOK_ALLOW_INSECURE: '1',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema } : {}),
  });
  const ctx = await createContext(config, { log: pino({ level: 'silent' }) });
  const receiver = await startReceiver();
  const worker = await createWorker(ctx);
  try {
    const { user } = await createOwner(ctx.db, { email: 'bench@example.test', plan: 'unlimited' }, ctx.clock.now());
    const principal: Principal = {
      userId: user.user_id,
      tenantId: user.tenant_id,
      apiKeyId: 'bench',
      plan: 'unlimited',
      addons: [],
      permission: 'read-write',
      keyScope: 'full',
      profileIds: null,
    };
    await createWebhook(ctx, principal, {
      name: 'bench',
      url: receiver.url,
      events: ['post.published'],
      secret: 'bench-secret',
    });

    // Throughput: the whole burst is in the outbox before the worker starts.
    for (let i = 0; i < BURST; i++) await emit(ctx, user.tenant_id, i);
    const started = performance.now();
    worker.start();
    await receiver.waitFor(BURST, 60_000);
    const perSecond = Math.round(BURST / ((performance.now() - started) / 1000));

    // Latency: one event at a time into an idle worker, as a publication would.
    const sent: { id: string; committedAt: number }[] = [];
    for (let i = 0; i < TRICKLE; i++) {
      sent.push(await emit(ctx, user.tenant_id, BURST + i));
      await new Promise((r) => setTimeout(r, TRICKLE_GAP_MS));
    }
    await receiver.waitFor(BURST + TRICKLE, 30_000);
    const measured = sent.map((s) => receiver.arrivals.get(s.id)! - s.committedAt);
    measured.sort((a, b) => a - b);
    const p50 = Math.round(percentile(measured, 50));
    const p95 = Math.round(percentile(measured, 95));
    return [
      { name: `webhook deliveries per second (${ctx.db.dialect}, loopback receiver)`, value: perSecond, unit: '/s' },
      { name: 'event to delivery arriving, p50', value: p50, unit: 'ms' },
      { name: 'event to delivery arriving, p95', value: p95, unit: 'ms', goal: 'p95 < 1000 ms', pass: p95 < 1000 },
    ];
  } finally {
    await worker.stop();
    await receiver.close();
    await ctx.close();
    if (databaseUrl) await dropPostgresSchema(databaseUrl, schema);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
