import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { heartbeat, HEARTBEAT_STALE_MS } from '../../src/jobs/heartbeat.js';
import { seedPost, seedPosts } from '../helpers/test-platform-fixtures.js';
import { advanceToJob, createEngineEnv, createTenant, publishJob, target, type EngineEnv } from './engine-env.js';

/*
 * Publishing paced by the platforms' declared limits (docs/pacing.md), against the test platform with a
 * fake clock. The test adapters publish as `twitter` (100 posts per 15 minutes per account) and `bluesky`
 * (5,000 write points an hour, a post 3), so these budgets are the descriptors' own.
 */

let e: EngineEnv;
beforeAll(async () => {
  e = await createEngineEnv();
});
afterAll(async () => e?.close());
beforeEach(() => {
  e.sim.reset();
  e.ctx.budgets.setShare(1);
});

/** The X account budget's window: 100 posts in any 15 minutes. */
const X_WINDOW_MS = 15 * 60_000;

describe('pacing by platform budgets', { timeout: 120_000 }, () => {
  it('sends what an account budget allows and leaves the rest waiting for their reserved times, untouched and uncounted', async () => {
    const t = await createTenant(e);
    const now = e.env.clock.now();
    // Twenty workers share the budgets (no Redis): this one has 5 of the account's 100 (fewer rows to write).
    e.ctx.budgets.setShare(20);
    const targetIds = await seedPosts(
      e.ctx,
      Array.from({ length: 7 }, (_, i) => ({
        tenantId: t.userId,
        content: `x ${i}`,
        targets: [{ account: t.twitter }],
        scheduledFor: now,
      })),
    );
    const other = await seedPost(e.ctx, {
      tenantId: t.userId,
      content: 'other account',
      targets: [{ account: t.bluesky }],
      scheduledFor: now,
    });
    await e.runner.drain();

    expect(e.sim.posts.filter((p) => p.text.startsWith('x '))).toHaveLength(5);
    expect(e.sim.count(other.targetIds[0])).toBe(1);
    const waiting = [];
    for (const id of targetIds) {
      const row = await target(e.ctx, id);
      if (row.status !== 'published') waiting.push({ row, job: (await publishJob(e.ctx, id))! });
    }
    expect(waiting).toHaveLength(2);
    for (const w of waiting) {
      // Not failed, not a try: the target was never claimed and its job keeps its attempt count.
      expect(w.row).toMatchObject({ status: 'pending', attempts: 0, error_message: null });
      expect(w.job).toMatchObject({ attempts: 0, locked_by: null });
    }
    // Each waits until a post of the 5 is 15 minutes old.
    const times = waiting.map((w) => new Date(w.job.run_at).getTime() - now.getTime());
    expect(times).toEqual([X_WINDOW_MS, X_WINDOW_MS]);

    // Not due yet: nothing more goes out.
    e.env.clock.advance(X_WINDOW_MS - 1);
    await e.runner.drain();
    expect(e.sim.posts.filter((p) => p.text.startsWith('x '))).toHaveLength(5);
    // At their reserved time they publish, without reserving again.
    e.env.clock.advance(1);
    await e.runner.drain();
    expect(e.sim.posts.filter((p) => p.text.startsWith('x '))).toHaveLength(7);
    for (const w of waiting)
      expect(await target(e.ctx, w.row.target_id)).toMatchObject({ status: 'published', attempts: 1 });
    expect(e.sim.duplicates()).toEqual([]);
  });

  it("moves the account's budget to a 429's hint: its next post waits for it, other accounts do not", async () => {
    const t = await createTenant(e);
    const u = await createTenant(e);
    const first = await seedPost(e.ctx, {
      tenantId: t.userId,
      content: 'throttled',
      targets: [{ account: t.bluesky }],
      scheduledFor: e.env.clock.now(),
    });
    e.sim.failNext('rate_limited', 1, { retryAfterSec: 600 });
    await e.runner.drain();
    const pausedAt = e.env.clock.now().getTime();
    expect(await target(e.ctx, first.targetIds[0])).toMatchObject({ status: 'pending' });

    const second = await seedPost(e.ctx, {
      tenantId: t.userId,
      content: 'same account',
      targets: [{ account: t.bluesky }],
      scheduledFor: e.env.clock.now(),
    });
    const elsewhere = await seedPost(e.ctx, {
      tenantId: u.userId,
      content: 'other account',
      targets: [{ account: u.bluesky }],
      scheduledFor: e.env.clock.now(),
    });
    await e.runner.drain();
    expect(e.sim.count(elsewhere.targetIds[0])).toBe(1);
    expect(e.sim.count(second.targetIds[0])).toBe(0);
    expect(await target(e.ctx, second.targetIds[0])).toMatchObject({ status: 'pending', attempts: 0 });
    expect(new Date((await publishJob(e.ctx, second.targetIds[0]))!.run_at).getTime()).toBe(pausedAt + 600_000);

    e.env.clock.advance(600_000);
    await e.runner.drain();
    expect(e.sim.count(first.targetIds[0])).toBe(1);
    expect(e.sim.count(second.targetIds[0])).toBe(1);
  });

  it("gives a refused send's place back: a post the platform answered 429 is retried at the hint, not a window later", async () => {
    const t = await createTenant(e);
    const now = e.env.clock.now();
    // This worker's share of the account: 5 posts in any 15 minutes, and exactly 5 posts.
    e.ctx.budgets.setShare(20);
    const targetIds = await seedPosts(
      e.ctx,
      Array.from({ length: 5 }, (_, i) => ({
        tenantId: t.userId,
        content: `refused ${i}`,
        targets: [{ account: t.twitter }],
        scheduledFor: now,
      })),
    );
    e.sim.failNext('rate_limited', 1, { retryAfterSec: 60 });
    await e.runner.drain();
    const rows = await Promise.all(targetIds.map((id) => target(e.ctx, id)));
    expect(rows.filter((r) => r.status === 'published')).toHaveLength(4);
    const refused = rows.find((r) => r.status === 'pending')!;
    // The platform counted 4 posts: the fifth place is free again once the 429's wait is over.
    e.env.clock.advance(60_000);
    await e.runner.drain();
    expect(await target(e.ctx, refused.target_id)).toMatchObject({ status: 'published' });
    expect(e.sim.posts.filter((p) => p.text.startsWith('refused '))).toHaveLength(5);
    expect(e.sim.duplicates()).toEqual([]);
  });

  it('never fails a post the platform keeps throttling with a wait: it waits as often as it is told', async () => {
    const t = await createTenant(e);
    const p = await seedPost(e.ctx, {
      tenantId: t.userId,
      content: 'patient',
      targets: [{ account: t.bluesky }],
      scheduledFor: e.env.clock.now(),
    });
    const throttles = 10; // more than MAX_SEND_ATTEMPTS
    e.sim.failNext('rate_limited', throttles, { retryAfterSec: 60 });
    for (let i = 0; i < throttles; i++) {
      await e.runner.drain();
      expect((await target(e.ctx, p.targetIds[0])).status).toBe('pending');
      await advanceToJob(e, p.targetIds[0]);
    }
    await e.runner.drain();
    expect(await target(e.ctx, p.targetIds[0])).toMatchObject({ status: 'published' });
    expect(e.sim.count(p.targetIds[0])).toBe(1);
  });

  it('splits every budget between the live workers when no Redis shares it', async () => {
    const t = await createTenant(e);
    await heartbeat(e.ctx, 'pacing-a');
    expect(await heartbeat(e.ctx, 'pacing-b')).toBe(2);
    expect(e.ctx.budgets.share).toBe(2);
    // The engine paces by the share it is given (test/engine/budgets.test.ts shows the split itself): with
    // fifty workers, this one has 2 of the account's 100, and the third post waits a window.
    const now = e.env.clock.now();
    const targetIds = await seedPosts(
      e.ctx,
      Array.from({ length: 3 }, (_, i) => ({
        tenantId: t.userId,
        content: `half ${i}`,
        targets: [{ account: t.twitter }],
        scheduledFor: now,
      })),
    );
    e.ctx.budgets.setShare(50);
    await e.runner.drain();
    expect(e.sim.posts.filter((p) => p.text.startsWith('half '))).toHaveLength(2);
    const late = [];
    for (const id of targetIds)
      if ((await target(e.ctx, id)).status === 'pending') late.push((await publishJob(e.ctx, id))!);
    expect(late.map((j) => new Date(j.run_at).getTime() - now.getTime())).toEqual([X_WINDOW_MS]);

    // A worker that stopped beating no longer counts: the share grows back.
    e.env.clock.advance(HEARTBEAT_STALE_MS + 1);
    expect(await heartbeat(e.ctx, 'pacing-a')).toBe(1);
    expect(e.ctx.budgets.share).toBe(1);
  });
});
