import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { assertAllPublishedOnce, outstanding, seedTenant } from '../helpers/publish-once.js';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.js';
import {
  killHard,
  startEngineWorker,
  stopGracefully,
  waitUntil,
  type WorkerProc,
} from '../helpers/test-platform-processes.js';

/*
 * PostgreSQL only (this file is collected on the PostgreSQL run alone): SQLite is one embedded writer,
 * several worker processes need FOR UPDATE SKIP LOCKED.
 *
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

describe('publishing engine across worker processes on PostgreSQL', () => {
  it('shares 2,000 posts due at the same moment between three worker processes with zero duplicates', async () => {
    sim.reset();
    const posts = 2000;
    const { tenantId, targetIds } = await seedTenant(env, posts, 1, 0);
    // The default lease: nobody is killed here, so no job should change hands.
    const three = ['a', 'b', 'c'].map((tag) =>
      startEngineWorker(env.config, sim.url, `multi-${tag}`, { WORKER_LEASE_MS: '120000' }),
    );
    workers.push(...three);
    await waitUntil(
      async () => (await outstanding(env, tenantId)).jobs === 0,
      150_000,
      'every publish job to finish',
      async () => ({
        ...(await outstanding(env, tenantId)),
        accepted: sim.posts.length,
        output: three.map((w) => w.output().slice(-300)),
      }),
    );
    await Promise.all(three.map(stopGracefully));
    await assertAllPublishedOnce(env, sim, tenantId, targetIds, posts);
    const perWorker = new Map<string, number>();
    for (const p of sim.posts) perWorker.set(p.worker ?? '?', (perWorker.get(p.worker ?? '?') ?? 0) + 1);
    expect([...perWorker.keys()].sort()).toEqual(['multi-a', 'multi-b', 'multi-c']);
  }, 200_000);
});
