import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { assertAllPublishedOnce, outstanding, seedTenant } from '../helpers/publish-once.js';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.js';
import {
  killHard,
  sleep,
  startEngineWorker,
  stopGracefully,
  waitUntil,
  type WorkerProc,
} from '../helpers/test-platform-processes.js';

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

describe('publishing engine across processes', () => {
  it('publishes every target exactly once while the worker is SIGKILLed at random moments and restarted', async () => {
    sim.reset();
    // Slow answers so that kills land between the claim and the answer, too.
    sim.setLatency(0, 10);
    const posts = 1000;
    const { tenantId, targetIds } = await seedTenant(env, posts, 2, 8_000);
    expect(targetIds).toHaveLength(2000);

    // Kill at random moments: sometimes while the worker is still starting, mostly while it is
    // publishing (after the simulator saw its first post), a random 0-800 ms into the work.
    let kills = 0;
    for (let round = 0; round < 6 && (await outstanding(env, tenantId)).jobs > 0; round++) {
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
    await waitUntil(
      async () => (await outstanding(env, tenantId)).jobs === 0,
      150_000,
      'every publish job to finish',
      async () => ({
        ...(await outstanding(env, tenantId)),
        accepted: sim.posts.length,
        output: last.output().slice(-300),
      }),
    );
    await stopGracefully(last);

    await assertAllPublishedOnce(env, sim, tenantId, targetIds, posts);
  }, 240_000);
});
