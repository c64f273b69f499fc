import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recycleJobKey } from '../../src/domain/recycling/state.js';
import { findJobByKey } from '../../src/store/jobs.js';
import { listRecycledCopies } from '../../src/store/recycling.js';
import { createEngineEnv, createTenant, events, post, type EngineEnv } from '../engine/engine-env.js';
import { killHard, sleep, startEngineWorker, waitUntil, type WorkerProc } from '../helpers/test-platform-processes.js';

/*
 * Recycling across SIGKILLed worker processes. Each worker runs the real job runner with its clock
 * stopped at a chosen instant (TEST_CLOCK_AT), so a test can put a worker in week n; the workers publish
 * to the test platform simulator in this process.
 */
const WEEK = 7 * 86_400_000;
/** The workers' lease (startEngineWorker): a killed worker's claim is free again this long after it. */
const LEASE_MS = 10_000;
let e: EngineEnv;
const workers: WorkerProc[] = [];

beforeAll(async () => {
  e = await createEngineEnv();
  e.env.clock.set('2026-03-02T10:00:00.000Z');
});
afterAll(async () => {
  await Promise.all(workers.map(killHard));
  await e?.close();
});

function workerAt(at: Date, tag: string): WorkerProc {
  const w = startEngineWorker(e.env.config, e.sim.url, tag, { TEST_CLOCK_AT: at.toISOString() });
  workers.push(w);
  return w;
}

async function copies(sourceId: string) {
  const rows = await listRecycledCopies(e.ctx.db.kysely, sourceId);
  return Promise.all(rows.map(async (c) => ({ cycle: c.cycle, post: await post(e.ctx, c.post_id) })));
}

/** Runs a worker at `at` until the source has `n` copies, all published, then SIGKILLs it (between cycles). */
async function runCycle(sourceId: string, n: number, at: Date, tag: string): Promise<void> {
  const w = workerAt(at, tag);
  await waitUntil(
    async () => {
      const made = await copies(sourceId);
      return made.length === n && made.every((c) => c.post.status === 'published');
    },
    60_000,
    `copy ${n} to be made and published`,
    () => w.output().slice(-300),
  );
  await killHard(w);
}

describe('recycling across worker processes', () => {
  it('a SIGKILL between cycles, or during one, neither skips nor duplicates a cycle', async () => {
    const t = await createTenant(e);
    const start = new Date(e.env.clock.now().getTime() + 60_000);
    const created = await e.env.request(t.apiKey, 'POST', '/v1/posts', {
      content: 'Our evergreen guide',
      scheduledFor: start.toISOString(),
      platforms: [{ platform: 'bluesky', accountId: t.bluesky.account_id }],
      recycling: {
        gap: 1,
        gapFreq: 'week',
        expireCount: 3,
        contentVariations: ['Read our guide', 'Our guide, updated'],
      },
    });
    expect(created.status).toBe(201);
    const sourceId = created.body.post._id as string;
    e.env.clock.set(start);
    await e.runner.drain();
    expect((await post(e.ctx, sourceId)).status).toBe('published');
    const slot = (n: number) => new Date(start.getTime() + n * WEEK + 1_000);

    await runCycle(sourceId, 1, slot(1), 'week-1');

    // Week 2: the first worker dies a few milliseconds after it starts polling (before, during or after
    // its recycle transaction); the next one, once that claim's lease is over, finishes the cycle.
    const early = workerAt(slot(2), 'week-2-killed');
    await early.ready;
    await sleep(Math.random() * 150);
    await killHard(early);
    expect((await copies(sourceId)).length).toBeLessThanOrEqual(2);
    await runCycle(sourceId, 2, new Date(slot(2).getTime() + LEASE_MS + 1_000), 'week-2');

    // Week 3 on this process's runner (the killed workers' successor), then weeks 4 and 5: nothing more is due.
    for (const week of [3, 4, 5]) {
      e.env.clock.set(slot(week));
      await e.runner.drain();
    }
    expect(await findJobByKey(e.ctx.db.kysely, recycleJobKey(sourceId))).toBeUndefined();

    const made = await copies(sourceId);
    expect(made.map((c) => c.cycle)).toEqual([1, 2, 3]);
    expect(made.map((c) => c.post.content)).toEqual(['Read our guide', 'Our guide, updated', 'Read our guide']);
    expect(await events(e.ctx, t.userId, 'post.recycled')).toHaveLength(3);
    // Each copy reached the platform once; the simulator does not de-duplicate.
    expect(e.sim.duplicates()).toEqual([]);
    expect(e.sim.posts).toHaveLength(4);
    const recycling = (await e.env.request(t.apiKey, 'GET', `/v1/posts/${sourceId}`)).body.post.recycling;
    expect(recycling).toMatchObject({ enabled: false, recycleCount: 3 });
  }, 180_000);
});
