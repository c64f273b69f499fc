import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedPost } from '../helpers/test-platform-fixtures.js';
import { createEngineEnv, createTenant, type EngineEnv } from './engine-env.js';

let e: EngineEnv;
beforeAll(async () => {
  e = await createEngineEnv();
});
afterAll(async () => e?.close());

describe('scheduler lag on /health', () => {
  it('shows the age of the oldest overdue publish job and the queue depth, and clears once caught up', async () => {
    const t = await createTenant(e);
    const dueAt = e.env.clock.now();
    await seedPost(e.ctx, {
      tenantId: t.userId,
      content: 'late',
      targets: [{ account: t.bluesky }, { account: t.twitter }],
      scheduledFor: dueAt,
    });
    await seedPost(e.ctx, {
      tenantId: t.userId,
      content: 'future',
      targets: [{ account: t.bluesky }],
      scheduledFor: new Date(dueAt.getTime() + 86_400_000),
    });
    // No worker ran for five minutes (a process that was down).
    e.env.clock.advance(300_000);
    const down = await e.env.request(null, 'GET', '/health');
    expect(down.status).toBe(200);
    expect(down.body.scheduler.lagMs).toBeGreaterThanOrEqual(300_000);
    expect(down.body.scheduler.oldestDueAt).toBe(dueAt.toISOString());
    expect(down.body.scheduler.dueJobs).toBeGreaterThanOrEqual(2);
    expect(down.body.scheduler.queueDepth).toBeGreaterThanOrEqual(3);
    expect(down.body.scheduler.queueDepthCapped).toBe(false);

    // The worker starts and catches up: due jobs are just rows.
    await e.runner.drain();
    expect(e.sim.posts).toHaveLength(2);
    const up = await e.env.request(null, 'GET', '/health');
    expect(up.body.scheduler.lagMs).toBe(0);
    expect(up.body.scheduler.dueJobs).toBe(0);
    expect(up.body.scheduler.queueDepth).toBeGreaterThanOrEqual(1);
  });
});
