import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRecycleJob } from '../../src/domain/recycling/recycle-post.js';
import { RECYCLE_TASK, recycleJobKey } from '../../src/domain/recycling/state.js';
import { claimDueJobs, findJobByKey } from '../../src/store/jobs.js';
import { listRecycledCopies } from '../../src/store/recycling.js';
import { createEngineEnv, createTenant, events, post, type EngineEnv } from '../engine/engine-env.js';
import { seedAccount } from '../helpers/test-platform-fixtures.js';

/*
 * Post recycling on a fake clock: the engine publishes to the test platform simulator, the job runner is
 * drained by hand after each move of the clock.
 */
const WEEK = 7 * 86_400_000;
let e: EngineEnv;
beforeAll(async () => {
  e = await createEngineEnv();
  e.env.clock.set('2026-03-02T10:00:00.000Z');
});
afterAll(async () => e?.close());

const copiesOf = async (postId: string) => {
  const copies = await listRecycledCopies(e.ctx.db.kysely, postId);
  return Promise.all(copies.map(async (c) => ({ cycle: c.cycle, post: await post(e.ctx, c.post_id) })));
};

describe('post recycling', () => {
  it('a weekly post with expireCount 3 and two variations makes three copies in turn, then stops', async () => {
    const t = await createTenant(e);
    const start = new Date(e.env.clock.now().getTime() + 3_600_000);
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
    expect(created.body.post.recycling).toEqual({
      enabled: true,
      gap: 1,
      gapFreq: 'week',
      expireCount: 3,
      contentVariations: ['Read our guide', 'Our guide, updated'],
      contentVariationIndex: 0,
      recycleCount: 0,
    });
    // Nothing is recycled before the post is out.
    expect(await findJobByKey(e.ctx.db.kysely, recycleJobKey(sourceId))).toBeUndefined();

    e.env.clock.set(start);
    await e.runner.drain();
    expect((await post(e.ctx, sourceId)).status).toBe('published');
    const planned = (await e.env.request(t.apiKey, 'GET', `/v1/posts/${sourceId}`)).body.post.recycling;
    expect(planned).toMatchObject({
      enabled: true,
      recycleCount: 0,
      nextRecycleAt: new Date(start.getTime() + WEEK).toISOString(),
    });

    for (let week = 1; week <= 5; week++) {
      e.env.clock.set(new Date(start.getTime() + week * WEEK));
      await e.runner.drain();
    }

    const copies = await copiesOf(sourceId);
    expect(copies.map((c) => c.cycle)).toEqual([1, 2, 3]);
    expect(copies.map((c) => c.post.content)).toEqual(['Read our guide', 'Our guide, updated', 'Read our guide']);
    expect(copies.map((c) => c.post.scheduled_for)).toEqual(
      [1, 2, 3].map((w) => new Date(start.getTime() + w * WEEK).toISOString()),
    );
    expect(copies.map((c) => c.post.status)).toEqual(['published', 'published', 'published']);

    const recycled = await events(e.ctx, t.userId, 'post.recycled');
    expect(recycled).toHaveLength(3);
    const payloads = recycled.map((ev) => JSON.parse(ev.payload).post);
    expect(payloads.map((p) => p.recycledFromPostId)).toEqual([sourceId, sourceId, sourceId]);
    expect(payloads.map((p) => p.id).sort()).toEqual(copies.map((c) => c.post.post_id).sort());
    expect(payloads.every((p) => p.status === 'scheduled')).toBe(true);

    const copy = (await e.env.request(t.apiKey, 'GET', `/v1/posts/${copies[1].post.post_id}`)).body.post;
    expect(copy).toMatchObject({ recycledFromPostId: sourceId, content: 'Our guide, updated', status: 'published' });
    expect(copy.recycling).toBeUndefined();
    const final = (await e.env.request(t.apiKey, 'GET', `/v1/posts/${sourceId}`)).body.post.recycling;
    expect(final).toMatchObject({ enabled: false, recycleCount: 3, contentVariationIndex: 1 });
    expect(final.lastRecycledAt).toBe(new Date(start.getTime() + 3 * WEEK).toISOString());
    expect(final.nextRecycleAt).toBeUndefined();
    expect(await findJobByKey(e.ctx.db.kysely, recycleJobKey(sourceId))).toBeUndefined();
  });

  it('refuses a malformed configuration with 400 and details.fields, storing nothing', async () => {
    const t = await createTenant(e);
    const base = {
      content: 'bad recycling',
      isDraft: true,
      platforms: [{ platform: 'bluesky', accountId: t.bluesky.account_id }],
    };
    const cases: Array<[unknown, string]> = [
      [{ gap: 0, gapFreq: 'week' }, 'recycling.gap'],
      [{ gapFreq: 'week' }, 'recycling.gap'],
      [{ gap: 1, gapFreq: 'day' }, 'recycling.gapFreq'],
      [{ gap: 1, contentVariations: ['only one'] }, 'recycling.contentVariations'],
      [{ gap: 1, contentVariations: Array.from({ length: 21 }, (_, i) => `v${i}`) }, 'recycling.contentVariations'],
      [{ gap: 1, startDate: 'next tuesday' }, 'recycling.startDate'],
      [{ gap: 1, expireCount: 0 }, 'recycling.expireCount'],
    ];
    for (const [recycling, field] of cases) {
      const res = await e.env.request(t.apiKey, 'POST', '/v1/posts', { ...base, recycling });
      expect(res.status, JSON.stringify(recycling)).toBe(400);
      expect(Object.keys(res.body.details.fields), JSON.stringify(recycling)).toContain(field);
    }
    const listed = await e.env.request(t.apiKey, 'GET', '/v1/posts');
    expect(listed.body.posts).toEqual([]);
  });

  it('is not available for platforms whose descriptor refuses it', async () => {
    const t = await createTenant(e);
    for (const platform of ['youtube', 'tiktok'] as const) {
      const account = await seedAccount(e.ctx, t.userId, t.profileId, platform);
      const res = await e.env.request(t.apiKey, 'POST', '/v1/posts', {
        content: 'no recycling here',
        isDraft: true,
        platforms: [{ platform, accountId: account.account_id }],
        recycling: { gap: 1 },
      });
      expect(res.status).toBe(400);
      expect(res.body.details.fields.recycling[0]).toMatch(/not available/);
    }
    expect((await e.env.request(t.apiKey, 'GET', '/v1/posts')).body.posts).toEqual([]);
  });

  it('allows at most 10 active recycling posts per account', async () => {
    const t = await createTenant(e);
    const body = (n: number) => ({
      content: `recycled ${n}`,
      isDraft: true,
      platforms: [{ platform: 'twitter', accountId: t.twitter.account_id }],
      recycling: { gap: 2, gapFreq: 'month' },
    });
    const ids: string[] = [];
    for (let n = 0; n < 10; n++) {
      const res = await e.env.request(t.apiKey, 'POST', '/v1/posts', body(n));
      expect(res.status).toBe(201);
      ids.push(res.body.post._id);
    }
    const eleventh = await e.env.request(t.apiKey, 'POST', '/v1/posts', body(10));
    expect(eleventh.status).toBe(403);
    expect(eleventh.body).toMatchObject({
      code: 'recycling_limit_reached',
      details: { accountId: t.twitter.account_id, limit: 10, current: 10 },
    });
    // Another account is not affected; turning one off frees a place.
    const other = await e.env.request(t.apiKey, 'POST', '/v1/posts', {
      ...body(11),
      platforms: [{ platform: 'bluesky', accountId: t.bluesky.account_id }],
    });
    expect(other.status).toBe(201);
    const off = await e.env.request(t.apiKey, 'PUT', `/v1/posts/${ids[0]}`, { recycling: { enabled: false } });
    expect(off.status).toBe(200);
    expect(off.body.post.recycling).toMatchObject({ enabled: false, gap: 2, gapFreq: 'month' });
    expect((await e.env.request(t.apiKey, 'POST', '/v1/posts', body(12))).status).toBe(201);
  });

  it('PUT on a published post moves the next copy, and turning it off stops the copies', async () => {
    const t = await createTenant(e);
    const now = e.env.clock.now();
    const created = await e.env.request(t.apiKey, 'POST', '/v1/posts', {
      content: 'monthly tip',
      publishNow: true,
      platforms: [{ platform: 'twitter', accountId: t.twitter.account_id }],
      recycling: { gap: 1, gapFreq: 'week', contentVariations: [] },
    });
    expect(created.status).toBe(201);
    const id = created.body.post._id as string;
    await e.runner.drain();
    expect((await post(e.ctx, id)).status).toBe('published');
    const first = (await e.env.request(t.apiKey, 'GET', `/v1/posts/${id}`)).body.post.recycling;
    expect(first.nextRecycleAt).toBe(new Date(now.getTime() + WEEK).toISOString());

    const moved = await e.env.request(t.apiKey, 'PUT', `/v1/posts/${id}`, { recycling: { gap: 3 } });
    expect(moved.status).toBe(200);
    expect(moved.body.post.recycling).toMatchObject({
      enabled: true,
      gap: 3,
      gapFreq: 'week',
      nextRecycleAt: new Date(now.getTime() + 3 * WEEK).toISOString(),
    });
    expect((await findJobByKey(e.ctx.db.kysely, recycleJobKey(id)))?.run_at).toBe(
      new Date(now.getTime() + 3 * WEEK).toISOString(),
    );

    e.env.clock.set(new Date(now.getTime() + 3 * WEEK));
    await e.runner.drain();
    const copies = await copiesOf(id);
    expect(copies.map((c) => c.post.content)).toEqual(['monthly tip']);

    const off = await e.env.request(t.apiKey, 'PUT', `/v1/posts/${id}`, { recycling: { enabled: false } });
    expect(off.status).toBe(200);
    expect(off.body.post.recycling).toMatchObject({ enabled: false, recycleCount: 1 });
    expect(off.body.post.recycling.nextRecycleAt).toBeUndefined();
    expect(await findJobByKey(e.ctx.db.kysely, recycleJobKey(id))).toBeUndefined();
    e.env.clock.set(new Date(now.getTime() + 12 * WEEK));
    await e.runner.drain();
    expect(await copiesOf(id)).toHaveLength(1);
    // Other fields of a published post still cannot change.
    expect(
      (await e.env.request(t.apiKey, 'PUT', `/v1/posts/${id}`, { content: 'new', recycling: { enabled: true } }))
        .status,
    ).toBe(400);
  });

  it('stops at expireDate', async () => {
    const t = await createTenant(e);
    const now = e.env.clock.now();
    const created = await e.env.request(t.apiKey, 'POST', '/v1/posts', {
      content: 'until a date',
      publishNow: true,
      platforms: [{ platform: 'bluesky', accountId: t.bluesky.account_id }],
      recycling: { gap: 1, gapFreq: 'week', expireDate: new Date(now.getTime() + 2 * WEEK + 60_000).toISOString() },
    });
    const id = created.body.post._id as string;
    await e.runner.drain();
    for (let week = 1; week <= 4; week++) {
      e.env.clock.set(new Date(now.getTime() + week * WEEK));
      await e.runner.drain();
    }
    expect((await copiesOf(id)).map((c) => c.cycle)).toEqual([1, 2]);
    expect((await post(e.ctx, id)).status).toBe('published');
  });
});

describe('post recycling of an unpublished post', () => {
  it('makes no more copies once the source is cancelled (unpublished)', async () => {
    const t = await createTenant(e);
    const now = e.env.clock.now();
    const created = await e.env.request(t.apiKey, 'POST', '/v1/posts', {
      content: 'taken down later',
      publishNow: true,
      platforms: [{ platform: 'bluesky', accountId: t.bluesky.account_id }],
      recycling: { gap: 1, gapFreq: 'week' },
    });
    const id = created.body.post._id as string;
    await e.runner.drain();
    // What unpublish leaves (the test platform's adapter has no unpublish): the post cancelled.
    await e.ctx.db.kysely.updateTable('post').set({ status: 'cancelled' }).where('post_id', '=', id).execute();
    e.env.clock.set(new Date(now.getTime() + 2 * WEEK));
    await e.runner.drain();
    expect(await copiesOf(id)).toHaveLength(0);
    expect((await e.env.request(t.apiKey, 'GET', `/v1/posts/${id}`)).body.post.recycling).toMatchObject({
      enabled: false,
      recycleCount: 0,
    });
    expect(await findJobByKey(e.ctx.db.kysely, recycleJobKey(id))).toBeUndefined();
  });
});

describe('post recycling after a crash', () => {
  it("a cycle claimed by a worker that died is made once, by the next worker, after the claim's lease", async () => {
    const t = await createTenant(e);
    const now = e.env.clock.now();
    const created = await e.env.request(t.apiKey, 'POST', '/v1/posts', {
      content: 'crash in between',
      publishNow: true,
      platforms: [{ platform: 'bluesky', accountId: t.bluesky.account_id }],
      recycling: { gap: 1, gapFreq: 'week', expireCount: 2 },
    });
    const id = created.body.post._id as string;
    await e.runner.drain();
    e.env.clock.set(new Date(now.getTime() + WEEK));
    // The dead worker's claim: leased for two minutes, then nothing (it never committed).
    const claimed = await claimDueJobs(e.ctx.db, {
      workerId: 'dead-worker',
      now: e.env.clock.now(),
      leaseUntil: new Date(e.env.clock.now().getTime() + 120_000),
      limit: 10,
      tasks: [RECYCLE_TASK],
    });
    expect(claimed.map((j) => j.key)).toEqual([recycleJobKey(id)]);
    await e.runner.drain();
    expect(await copiesOf(id)).toHaveLength(0);
    e.env.clock.advance(121_000);
    await e.runner.drain();
    expect((await copiesOf(id)).map((c) => c.cycle)).toEqual([1]);
    // The task run again for the same cycle (a duplicate delivery) changes nothing.
    await runRecycleJob(e.ctx, { jobId: claimed[0].job_id, workerId: 'dead-worker', postId: id });
    await e.runner.drain();
    expect((await copiesOf(id)).map((c) => c.cycle)).toEqual([1]);
    expect((await post(e.ctx, id)).status).toBe('published');
  });
});
