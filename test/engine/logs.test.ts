import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedPost } from '../helpers/test-platform-fixtures.js';
import { createEngineEnv, createTenant, type EngineEnv } from './engine-env.js';

let e: EngineEnv;
let t: Awaited<ReturnType<typeof createTenant>>;
let okPost: string;
let badPost: string;
beforeAll(async () => {
  e = await createEngineEnv();
  t = await createTenant(e);
  okPost = (
    await seedPost(e.ctx, {
      tenantId: t.userId,
      content: 'Launch day is here',
      targets: [{ account: t.bluesky }],
      scheduledFor: e.env.clock.now(),
    })
  ).postId;
  await e.runner.drain();
  e.sim.failNext('rejected', 1, { message: 'Duplicate content' });
  badPost = (
    await seedPost(e.ctx, {
      tenantId: t.userId,
      content: 'Second try',
      targets: [{ account: t.twitter }],
      scheduledFor: e.env.clock.now(),
    })
  ).postId;
  await e.runner.drain();
});
afterAll(async () => e?.close());

describe('publishing logs API', () => {
  it('lists every platform call through the SDK, newest first, with filters and skip pagination', async () => {
    const client = await e.env.sdk(t.apiKey);
    const all = (await client.logs.listLogs()).data as any;
    expect(all.logs).toHaveLength(2);
    expect(all.pagination).toEqual({ total: 2, limit: 50, skip: 0, pages: 1, hasMore: false });
    const [failed, ok] = all.logs;
    expect(failed).toMatchObject({
      postId: badPost,
      platform: 'twitter',
      action: 'publish',
      status: 'failed',
      statusCode: 400,
      attemptNumber: 1,
      accountId: t.twitter.account_id,
      accountUsername: 'twitter-user',
      profileId: t.profileId,
      userId: t.userId,
    });
    expect(failed.response).toMatchObject({ errorMessage: 'Duplicate content', platformPostId: null });
    expect(failed.request).toMatchObject({ contentPreview: 'Second try', mediaCount: 0, mediaUrls: [] });
    expect(failed.endpoint).toContain('/twitter/posts');
    expect(typeof failed.durationMs).toBe('number');
    expect(ok).toMatchObject({ postId: okPost, status: 'success', statusCode: 200 });
    expect(ok.response.platformPostId).toMatch(/^sim_/);

    const onlyFailed = (await client.logs.listLogs({ query: { status: 'failed' } })).data as any;
    expect(onlyFailed.logs.map((l: any) => l.postId)).toEqual([badPost]);
    const bluesky = (await client.logs.listLogs({ query: { platform: 'bluesky' } })).data as any;
    expect(bluesky.logs.map((l: any) => l.postId)).toEqual([okPost]);
    const page = (await client.logs.listLogs({ query: { limit: 1, skip: 1 } })).data as any;
    expect(page.logs.map((l: any) => l.postId)).toEqual([okPost]);
    expect(page.pagination).toEqual({ total: 2, limit: 1, skip: 1, pages: 2, hasMore: false });
    const first = (await client.logs.listLogs({ query: { limit: 1 } })).data as any;
    expect(first.pagination.hasMore).toBe(true);
    const retries = (await client.logs.listLogs({ query: { action: 'retry' } })).data as any;
    expect(retries.logs).toEqual([]);
  });

  it('rejects out-of-range filters with 400', async () => {
    for (const q of ['days=8', 'limit=101', 'limit=0', 'skip=-1', 'status=weird', 'action=nope', 'platform=myspace']) {
      const res = await e.env.request(t.apiKey, 'GET', `/v1/logs?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.details.fields, q).toBeDefined();
    }
  });

  it('limits to the last `days`', async () => {
    e.env.clock.advance(2 * 86_400_000);
    try {
      expect((await e.env.request(t.apiKey, 'GET', '/v1/logs?days=1')).body.logs).toHaveLength(0);
      expect((await e.env.request(t.apiKey, 'GET', '/v1/logs?days=3')).body.logs).toHaveLength(2);
    } finally {
      e.env.clock.advance(-2 * 86_400_000);
    }
  });

  it('gets one entry with its post and account populated', async () => {
    const list = await e.env.request(t.apiKey, 'GET', '/v1/logs?status=failed');
    const id = list.body.logs[0]._id;
    const res = await e.env.request(t.apiKey, 'GET', `/v1/logs/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.log).toMatchObject({
      _id: id,
      postId: { _id: badPost, content: 'Second try', status: 'failed', mediaItems: [] },
      accountId: { _id: t.twitter.account_id, platform: 'twitter', username: 'twitter-user' },
      metadata: {},
    });
    expect(res.body.log.postId.platforms[0]).toMatchObject({
      platform: 'twitter',
      status: 'failed',
      errorMessage: 'Duplicate content',
    });
    expect(res.body.log.response.rawBody).toContain('Duplicate content');
    expect((await e.env.request(t.apiKey, 'GET', '/v1/logs/000000000000000000000000')).status).toBe(404);
  });

  it('serves /v1/posts/logs with a text search and /v1/posts/{postId}/logs', async () => {
    const search = await e.env.request(t.apiKey, 'GET', '/api/v1/posts/logs?search=launch');
    expect(search.status).toBe(200);
    expect(search.body.logs.map((l: any) => l.postId)).toEqual([okPost]);
    expect(search.body.pagination.total).toBe(1);
    const byAccount = await e.env.request(t.apiKey, 'GET', `/v1/posts/logs?accountId=${t.twitter.account_id}`);
    expect(byAccount.body.logs.map((l: any) => l.postId)).toEqual([badPost]);

    const one = await e.env.request(t.apiKey, 'GET', `/v1/posts/${okPost}/logs`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ postId: okPost, count: 1 });
    expect(one.body.logs[0]).toMatchObject({ postId: okPost, action: 'publish', status: 'success' });
    expect((await e.env.request(t.apiKey, 'GET', '/v1/posts/000000000000000000000000/logs')).status).toBe(404);
  });

  it("never shows another tenant's logs", async () => {
    const other = await e.env.createUser();
    const list = await e.env.request(other.apiKey, 'GET', '/v1/logs');
    expect(list.body.logs).toEqual([]);
    expect(list.body.pagination.total).toBe(0);
    expect((await e.env.request(other.apiKey, 'GET', '/v1/posts/logs?search=launch')).body.logs).toEqual([]);
    const id = (await e.env.request(t.apiKey, 'GET', '/v1/logs')).body.logs[0]._id;
    expect((await e.env.request(other.apiKey, 'GET', `/v1/logs/${id}`)).status).toBe(404);
    expect((await e.env.request(other.apiKey, 'GET', `/v1/posts/${okPost}/logs`)).status).toBe(404);
  });

  it('deletes entries older than 7 days with the periodic job', async () => {
    const before = await e.ctx.db.kysely.selectFrom('publish_log').select('log_id').execute();
    expect(before.length).toBeGreaterThanOrEqual(2);
    e.env.clock.advance(7 * 86_400_000 + 3_600_000);
    await e.runner.drain();
    const after = await e.ctx.db.kysely.selectFrom('publish_log').select('log_id').execute();
    expect(after).toHaveLength(0);
    const job = await e.ctx.db.kysely
      .selectFrom('job')
      .selectAll()
      .where('task', '=', 'publish-log.prune')
      .executeTakeFirstOrThrow();
    expect(new Date(job.run_at).getTime()).toBeGreaterThan(e.env.clock.now().getTime());
  });
});
