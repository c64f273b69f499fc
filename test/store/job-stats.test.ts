import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { jobStats } from '../../src/store/jobs.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

/* What /health reads of the job table: overdue jobs, the oldest of them, and the waiting ones up to a bound. */

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => env?.close());

const now = new Date('2030-06-01T12:00:00.000Z');
const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000).toISOString();

describe('job stats for /health', () => {
  it('counts overdue jobs and the oldest of them, waiting jobs up to the bound, never failed ones', async () => {
    const job = (runAt: string, failedAt: string | null = null) => ({
      job_id: newId(),
      task: 'stats.test',
      payload: '{}',
      run_at: runAt,
      max_attempts: 3,
      key: null,
      locked_by: null,
      locked_until: null,
      last_error: null,
      failed_at: failedAt,
      created_at: at(-100),
    });
    await env.ctx.db.kysely
      .insertInto('job')
      .values([job(at(-30)), job(at(-5)), job(at(0)), job(at(10)), job(at(60)), job(at(-90), at(-1))])
      .execute();
    expect(await jobStats(env.ctx.db.kysely, now)).toEqual({
      depth: 5,
      depthCapped: false,
      due: 3,
      oldestDueAt: at(-30),
    });
    expect(await jobStats(env.ctx.db.kysely, now, 5)).toMatchObject({ depth: 5, depthCapped: true, due: 3 });
    expect(await jobStats(env.ctx.db.kysely, now, 3)).toMatchObject({
      depth: 3,
      depthCapped: true,
      due: 3,
      oldestDueAt: at(-30),
    });
    expect(await jobStats(env.ctx.db.kysely, new Date(at(-60)))).toEqual({
      depth: 5,
      depthCapped: false,
      due: 0,
      oldestDueAt: null,
    });
  });
});
