import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConnectionLog } from '../../src/domain/connect/connection-log.js';
import { newId } from '../../src/lib/ids.js';
import { insertWebhookLog } from '../../src/store/webhook-logs.js';
import { seedPost } from '../helpers/test-platform-fixtures.js';
import { body, zernio } from '../helpers/zernio.js';
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
  it('lists every platform call on /v1/posts/logs, newest first, with filters and skip pagination', async () => {
    const postLogs = async (q: Record<string, string | number> = {}) =>
      (await e.env.request(t.apiKey, 'GET', `/v1/posts/logs?${new URLSearchParams(q as any)}`)).body;
    const all = await postLogs();
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

    const onlyFailed = await postLogs({ status: 'failed' });
    expect(onlyFailed.logs.map((l: any) => l.postId)).toEqual([badPost]);
    const bluesky = await postLogs({ platform: 'bluesky' });
    expect(bluesky.logs.map((l: any) => l.postId)).toEqual([okPost]);
    const page = await postLogs({ limit: 1, skip: 1 });
    expect(page.logs.map((l: any) => l.postId)).toEqual([okPost]);
    expect(page.pagination).toEqual({ total: 2, limit: 1, skip: 1, pages: 2, hasMore: false });
    const first = await postLogs({ limit: 1 });
    expect(first.pagination.hasMore).toBe(true);
    const retries = await postLogs({ action: 'retry' });
    expect(retries.logs).toEqual([]);
  });

  it('rejects out-of-range filters with 400', async () => {
    for (const q of ['days=8', 'limit=101', 'limit=0', 'skip=-1', 'status=weird', 'action=nope', 'platform=myspace']) {
      const res = await e.env.request(t.apiKey, 'GET', `/v1/posts/logs?${q}`);
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

  it('GET /v1/logs merges publishing calls, connections and webhook deliveries through @zernio/node', async () => {
    await writeConnectionLog(e.ctx, e.ctx.db.kysely, {
      tenantId: t.userId,
      userId: t.userId,
      profileId: t.profileId,
      accountId: t.bluesky.account_id,
      platform: 'bluesky',
      eventType: 'connect_success',
      method: 'credentials',
      success: { username: 'bluesky-user' },
    });
    await insertWebhookLog(e.ctx.db.kysely, {
      log_id: newId(e.env.clock.now()),
      tenant_id: t.userId,
      webhook_id: 'w1',
      webhook_name: 'hook',
      event_id: 'evt1',
      event: 'post.published',
      url: 'https://receiver.example/hook',
      status: 'failed',
      status_code: 503,
      request_payload: '{"id":"evt1"}',
      response_body: 'down',
      error_message: 'HTTP 503',
      attempt_number: 1,
      response_time: 12,
      created_at: e.env.clock.now().toISOString(),
    });
    const sdk = await zernio(e.env, t.apiKey);
    const all = body(await sdk.logs.listLogs());
    expect(all.logs.map((l: any) => l.type).sort()).toEqual(['connections', 'publishing', 'publishing', 'webhooks']);
    expect(all.pagination).toMatchObject({ total: 4, skip: 0, hasMore: false });
    const failedPublish = all.logs.find((l: any) => l.type === 'publishing' && l.status === 'failed');
    expect(failedPublish).toMatchObject({ action: 'post.publish', platform: 'twitter', status_code: 400 });
    expect(JSON.parse(failedPublish.metadata)).toMatchObject({ postId: badPost, attemptNumber: 1 });
    expect(all.logs.find((l: any) => l.type === 'connections')).toMatchObject({
      action: 'account.connected',
      account_id: t.bluesky.account_id,
    });

    const connections = body(await sdk.logs.listLogs({ query: { type: 'connections' } }));
    expect(connections.logs.map((l: any) => l.action)).toEqual(['account.connected']);
    const failed = body(await sdk.logs.listLogs({ query: { status: 'failed' } }));
    expect(failed.logs.map((l: any) => l.type).sort()).toEqual(['publishing', 'webhooks']);
    const delivered = body(await sdk.logs.listLogs({ query: { event: 'post.published' } }));
    expect(delivered.logs.map((l: any) => JSON.parse(l.metadata).eventId)).toEqual(['evt1']);
    const onBluesky = body(await sdk.logs.listLogs({ query: { platform: 'bluesky' } }));
    expect(onBluesky.logs.map((l: any) => l.type).sort()).toEqual(['connections', 'publishing']);
    const legacy = await e.env.request(t.apiKey, 'GET', `/v1/logs?account_id=${t.twitter.account_id}`);
    expect(legacy.body.logs.map((l: any) => l.account_id)).toEqual([t.twitter.account_id]);
    const page = body(await sdk.logs.listLogs({ query: { limit: 1, skip: 1 } }));
    expect(page.logs).toEqual([all.logs[1]]);
    expect(body(await sdk.logs.listLogs({ query: { type: 'messaging' } })).logs).toEqual([]);
    expect((await e.env.request(t.apiKey, 'GET', '/v1/logs?from=yesterday')).status).toBe(400);

    const other = await e.env.createUser();
    expect(body(await (await zernio(e.env, other.apiKey)).logs.listLogs()).logs).toEqual([]);
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
