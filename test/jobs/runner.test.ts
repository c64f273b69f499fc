import { RawNode, type KyselyPlugin, type QueryId } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobRunner } from '../../src/jobs/runner.js';
import { systemClock } from '../../src/lib/clock.js';
import type { Db } from '../../src/store/db.js';
import { enqueueJobs } from '../../src/store/jobs.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { waitUntil } from '../helpers/test-platform-processes.js';

/*
 * The job runner's poll loop (start/stop, real time). Claims are observed with a Kysely plugin that
 * records how many jobs each claim statement returned.
 */

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => env?.close());

function watchClaims(db: Db): { db: Db; sizes: number[] } {
  const sizes: number[] = [];
  const claims = new Set<QueryId>();
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      const node = args.node;
      if (RawNode.is(node) && /^\s*UPDATE job SET locked_by/.test(node.sqlFragments.join('?')))
        claims.add(args.queryId);
      return node;
    },
    async transformResult(args) {
      if (claims.delete(args.queryId)) sizes.push(args.result.rows.length);
      return args.result;
    },
  };
  return { db: { ...db, kysely: db.kysely.withPlugin(plugin) }, sizes };
}

async function enqueue(task: string, count: number): Promise<void> {
  const now = env.clock.now();
  await enqueueJobs(
    env.ctx.db.kysely,
    Array.from({ length: count }, (_, i) => ({ task, payload: { i }, runAt: now })),
    now,
  );
}

describe('job runner loop', () => {
  it('claims a burst in batches, never more than the free slots, and runs every job once', async () => {
    const { db, sizes } = watchClaims(env.ctx.db);
    // A poll far away: only finished jobs can trigger the next claim here.
    const runner = new JobRunner(db, env.clock, pino({ level: 'silent' }), {
      pollMs: 60_000,
      concurrency: 8,
      batchSize: 4,
    });
    const ran: number[] = [];
    let inFlight = 0;
    let most = 0;
    runner.register('test.burst', async (run) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setImmediate(r));
      ran.push((run.payload as { i: number }).i);
      inFlight--;
    });
    await enqueue('test.burst', 40);
    runner.start();
    await waitUntil(
      async () => ran.length === 40,
      20_000,
      'the burst',
      () => ({ ran: ran.length, sizes }),
    );
    await runner.stop();

    expect([...ran].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(most).toBeLessThanOrEqual(8);
    // One statement per batch of 4, not one per finished job.
    expect(sizes.filter((n) => n > 0)).toEqual(Array(10).fill(4));
  });

  it('fills a single free slot at the next poll when the other jobs are still running', async () => {
    const runner = new JobRunner(env.ctx.db, env.clock, pino({ level: 'silent' }), {
      pollMs: 20,
      concurrency: 4,
      batchSize: 4,
    });
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    let holding = 0;
    let quick = 0;
    runner.register('test.hold', async () => {
      holding++;
      await held;
    });
    runner.register('test.quick', async () => {
      quick++;
    });
    try {
      await enqueue('test.hold', 3);
      runner.start();
      await waitUntil(async () => holding === 3, 10_000, 'three long jobs to start');
      // One slot free: fewer than a batch, so no finished job wakes the loop; the poll must take it.
      await enqueue('test.quick', 2);
      await waitUntil(
        async () => quick === 2,
        10_000,
        'the quick jobs to run beside the long ones',
        () => ({ quick, holding }),
      );
    } finally {
      release();
      await runner.stop();
    }
  });

  it('with a lookahead, starts a job due between two polls at its due time, not before and not at the next poll', async () => {
    const pollMs = 3_000;
    const runner = new JobRunner(env.ctx.db, systemClock, pino({ level: 'silent' }), {
      pollMs,
      lookaheadMs: pollMs,
      concurrency: 4,
    });
    const ranAt: number[] = [];
    runner.register('test.timed', async () => {
      ranAt.push(Date.now());
    });
    const start = Date.now();
    const due = start + 1_000;
    await enqueueJobs(env.ctx.db.kysely, [{ task: 'test.timed', payload: {}, runAt: new Date(due) }], new Date());
    try {
      // The first poll finds the job not yet due; the next is a poll interval later.
      runner.start();
      await waitUntil(async () => ranAt.length === 1, 10_000, 'the timed job to run');
      expect(ranAt[0]).toBeGreaterThanOrEqual(due);
      expect(ranAt[0]).toBeLessThan(start + pollMs);
    } finally {
      await runner.stop();
    }
  });

  it('runs the tasks of a lane in slots of their own: a burst of them never takes the slots other tasks need', async () => {
    const runner = new JobRunner(env.ctx.db, env.clock, pino({ level: 'silent' }), {
      pollMs: 20,
      concurrency: 2,
      batchSize: 4,
      lanes: [{ tasks: ['test.lane'], concurrency: 2 }],
    });
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    let laneRunning = 0;
    let laneMost = 0;
    let other = 0;
    runner.register('test.lane', async () => {
      laneRunning++;
      laneMost = Math.max(laneMost, laneRunning);
      await held;
      laneRunning--;
    });
    runner.register('test.other', async () => {
      other++;
    });
    try {
      await enqueue('test.lane', 10);
      runner.start();
      await waitUntil(async () => laneRunning === 2, 10_000, 'the lane to fill');
      // Ten lane jobs are due and two hold the lane: the others wait, and the main slots stay free.
      await enqueue('test.other', 3);
      await waitUntil(
        async () => other === 3,
        10_000,
        'the other tasks to run beside the full lane',
        () => ({ other, laneRunning }),
      );
      expect(laneMost).toBe(2);
    } finally {
      release();
      await runner.stop();
    }
  });

  it('fails a job whose payload does not match its task, at once and with the reason, without running it', async () => {
    const errors: string[] = [];
    const log = pino({ level: 'error' }, { write: (line: string) => errors.push(JSON.parse(line).msg) });
    const runner = new JobRunner(env.ctx.db, env.clock, log, { pollMs: 20, concurrency: 2 });
    const seen: string[] = [];
    runner.register('post.recycle', async (run) => {
      seen.push(run.payload.postId);
      return 'done';
    });
    const now = env.clock.now();
    await enqueueJobs(
      env.ctx.db.kysely,
      [
        { task: 'post.recycle', payload: { postId: 42 }, runAt: now, key: 'bad-payload', maxAttempts: 5 },
        { task: 'post.recycle', payload: { postId: 'pst_good' }, runAt: now, key: 'good-payload' },
      ],
      now,
    );
    try {
      runner.start();
      const failed = () =>
        env.ctx.db.kysely
          .selectFrom('job')
          .select(['attempts', 'last_error', 'failed_at'])
          .where('key', '=', 'bad-payload')
          .executeTakeFirst();
      await waitUntil(async () => (await failed())?.failed_at != null && seen.length === 1, 10_000, 'the two jobs');
      const row = await failed();
      expect(row?.last_error).toBe('malformed payload for post.recycle: /postId Expected string');
      expect(row?.attempts).toBe(1); // not retried: a retry cannot mend a payload
      expect(seen).toEqual(['pst_good']);
      expect(errors).toContain('job runner: malformed payload for post.recycle: /postId Expected string');
    } finally {
      await runner.stop();
    }
  });
});
