import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLISH_TASK } from '../../src/domain/publishing/schedule.js';
import { createTestEnv, dialect, type TestEnv } from '../helpers/context.js';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.js';
import { seedAccount, seedPosts, seedProfile, type SeedPost } from '../helpers/test-platform-fixtures.js';
import { killHard, sleep, startEngineWorker, stopGracefully, waitUntil, type WorkerProc } from '../helpers/test-platform-processes.js';

/*
 * Real processes, real time: worker processes (test/helpers/test-platform-worker.ts) publish to the
 * simulator in this process, which counts every post it accepted per idempotency key (= target id).
 */

let env: TestEnv;
let sim: TestPlatform;
const workers: WorkerProc[] = [];

beforeAll(async () => {
  env = await createTestEnv();
  sim = await startTestPlatform();
});
afterAll(async () => {
  await Promise.all(workers.map(killHard));
  await sim?.close();
  await env?.close();
});

async function seedTenant(posts: number, targetsPerPost: 1 | 2, spreadMs: number): Promise<{ tenantId: string; targetIds: string[] }> {
  const { userId } = await env.createUser();
  const profileId = await seedProfile(env.ctx, userId);
  const bluesky = await seedAccount(env.ctx, userId, profileId, 'bluesky');
  const twitter = await seedAccount(env.ctx, userId, profileId, 'twitter');
  const start = Date.now();
  const list: SeedPost[] = Array.from({ length: posts }, (_, i) => ({
    tenantId: userId,
    content: `post ${i}`,
    targets: targetsPerPost === 2 ? [{ account: bluesky }, { account: twitter }] : [{ account: i % 2 ? bluesky : twitter }],
    scheduledFor: new Date(start + Math.floor((i / posts) * spreadMs)),
  }));
  const targetIds = await seedPosts(env.ctx, list);
  return { tenantId: userId, targetIds };
}

async function outstanding(tenantId: string): Promise<{ targets: number; jobs: number }> {
  const db = env.ctx.db.kysely;
  const t = await db
    .selectFrom('post_target')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('status', '!=', 'published')
    .executeTakeFirstOrThrow();
  const j = await db.selectFrom('job').select((eb) => eb.fn.countAll<number>().as('n')).where('task', '=', PUBLISH_TASK).executeTakeFirstOrThrow();
  return { targets: Number(t.n), jobs: Number(j.n) };
}

async function assertAllPublishedOnce(tenantId: string, targetIds: string[], posts: number) {
  expect(sim.duplicates()).toEqual([]);
  const missing = targetIds.filter((id) => sim.count(id) !== 1);
  expect(missing).toEqual([]);
  expect(await outstanding(tenantId)).toEqual({ targets: 0, jobs: 0 });
  const db = env.ctx.db.kysely;
  const notPublished = await db.selectFrom('post').select('post_id').where('tenant_id', '=', tenantId).where('status', '!=', 'published').execute();
  expect(notPublished).toEqual([]);
  // Exactly one outcome event per post.
  const events = await db
    .selectFrom('event')
    .select((eb) => ['type', eb.fn.countAll<number>().as('n')])
    .where('tenant_id', '=', tenantId)
    .where('type', 'like', 'post.%')
    .groupBy('type')
    .execute();
  expect(events.map((e) => ({ type: e.type, n: Number(e.n) }))).toEqual([{ type: 'post.published', n: posts }]);
  // Each target's platform id is the one the simulator gave.
  const rows = await db.selectFrom('post_target').select(['target_id', 'platform_post_id']).where('tenant_id', '=', tenantId).execute();
  const byKey = new Map(sim.posts.map((p) => [p.idempotencyKey, p.id]));
  expect(rows.filter((r) => byKey.get(r.target_id) !== r.platform_post_id)).toEqual([]);
}

describe('publishing engine across processes', () => {
  it('publishes every target exactly once while the worker is SIGKILLed at random moments and restarted', async () => {
    sim.reset();
    // Slow answers so that kills land between the claim and the answer, too.
    sim.setLatency(0, 10);
    const posts = 1000;
    const { tenantId, targetIds } = await seedTenant(posts, 2, 8_000);
    expect(targetIds).toHaveLength(2000);

    // Kill at random moments: sometimes while the worker is still starting, mostly while it is
    // publishing (after the simulator saw its first post), a random 0-800 ms into the work.
    let kills = 0;
    for (let round = 0; round < 6 && (await outstanding(tenantId)).jobs > 0; round++) {
      const w = startEngineWorker(env.config, sim.url, `crash-${round}`);
      workers.push(w);
      if (Math.random() < 0.2) {
        await sleep(Math.random() * 2000);
      } else {
        await w.ready;
        const seen = sim.posts.length;
        const until = Date.now() + 10_000;
        while (sim.posts.length === seen && Date.now() < until) await sleep(20);
        await sleep(Math.random() * 800);
      }
      await killHard(w);
      kills++;
    }
    expect(kills).toBeGreaterThanOrEqual(3);

    // The last one runs to the end: it catches up on everything, including the killed workers' claims.
    const last = startEngineWorker(env.config, sim.url, 'final');
    workers.push(last);
    await waitUntil(async () => (await outstanding(tenantId)).jobs === 0, 150_000, 'every publish job to finish', async () => ({
      ...(await outstanding(tenantId)),
      accepted: sim.posts.length,
      output: last.output().slice(-300),
    }));
    await stopGracefully(last);

    await assertAllPublishedOnce(tenantId, targetIds, posts);
  }, 240_000);

  it.skipIf(dialect === 'sqlite')(
    'shares 2,000 posts due at the same moment between three worker processes with zero duplicates (PostgreSQL only: SQLite is one embedded writer, several worker processes need FOR UPDATE SKIP LOCKED)',
    async () => {
      sim.reset();
      const posts = 2000;
      const { tenantId, targetIds } = await seedTenant(posts, 1, 0);
      // The default lease: nobody is killed here, so no job should change hands.
      const three = ['a', 'b', 'c'].map((tag) => startEngineWorker(env.config, sim.url, `multi-${tag}`, { WORKER_LEASE_MS: '120000' }));
      workers.push(...three);
      await waitUntil(async () => (await outstanding(tenantId)).jobs === 0, 150_000, 'every publish job to finish', async () => ({
        ...(await outstanding(tenantId)),
        accepted: sim.posts.length,
        output: three.map((w) => w.output().slice(-300)),
      }));
      await Promise.all(three.map(stopGracefully));
      await assertAllPublishedOnce(tenantId, targetIds, posts);
      const perWorker = new Map<string, number>();
      for (const p of sim.posts) perWorker.set(p.worker ?? '?', (perWorker.get(p.worker ?? '?') ?? 0) + 1);
      expect([...perWorker.keys()].sort()).toEqual(['multi-a', 'multi-b', 'multi-c']);
    },
    200_000,
  );
});
