import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_SEND_ATTEMPTS } from '../../src/domain/publishing/publish-target.js';
import { seedPost } from '../helpers/test-platform-fixtures.js';
import {
  advanceToJob,
  createEngineEnv,
  createTenant,
  events,
  logsOf,
  post,
  publishJob,
  target,
  type EngineEnv,
} from './engine-env.js';

let e: EngineEnv;
beforeAll(async () => {
  e = await createEngineEnv();
});
afterAll(async () => e?.close());
beforeEach(() => e.sim.reset());

async function onePost(
  content: string,
  which: 'bluesky' | 'twitter' | 'threads' = 'bluesky',
  extra: Partial<Parameters<typeof seedPost>[1]> = {},
) {
  const t = await createTenant(e);
  const seeded = await seedPost(e.ctx, {
    tenantId: t.userId,
    content,
    targets: [{ account: t[which] }],
    scheduledFor: e.env.clock.now(),
    ...extra,
  });
  return { t, postId: seeded.postId, targetId: seeded.targetIds[0] };
}

describe('publishing engine', () => {
  it('publishes a due target once and records the outcome, the post status, the event and the log', async () => {
    const { t, postId, targetId } = await onePost('hello world');
    expect(await e.runner.drain()).toBeGreaterThan(0);

    expect(e.sim.posts).toHaveLength(1);
    expect(e.sim.count(targetId)).toBe(1);
    expect(e.sim.posts[0].text).toBe('hello world');
    expect(e.sim.posts[0].accessToken).toBe('at-bluesky-user');
    const row = await target(e.ctx, targetId);
    expect(row).toMatchObject({
      status: 'published',
      platform_post_id: e.sim.posts[0].id,
      attempts: 1,
      error_message: null,
    });
    expect(row.platform_post_url).toContain(`/p/${e.sim.posts[0].id}`);
    expect(row.published_at).toBe(e.env.clock.now().toISOString());
    const p = await post(e.ctx, postId);
    expect(p.status).toBe('published');
    expect(p.published_at).toBe(row.published_at);
    expect(await publishJob(e.ctx, targetId)).toBeUndefined();

    const published = await events(e.ctx, t.userId, 'post.published');
    expect(published).toHaveLength(1);
    const data = JSON.parse(published[0].payload);
    expect(data.post).toMatchObject({ id: postId, status: 'published' });
    expect(data.post.platforms[0]).toMatchObject({
      platform: 'bluesky',
      status: 'published',
      platformPostId: row.platform_post_id,
    });

    const logs = await logsOf(e.ctx, postId);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      action: 'publish',
      status: 'success',
      status_code: 200,
      attempt_number: 1,
      platform: 'bluesky',
    });
    expect(logs[0].endpoint).toBe(`POST ${e.sim.url}/bluesky/posts`);
    expect(JSON.parse(logs[0].response)).toMatchObject({
      platformPostId: row.platform_post_id,
      platformPostUrl: row.platform_post_url,
    });
    expect(JSON.parse(logs[0].request)).toMatchObject({ contentPreview: 'hello world', mediaCount: 0 });

    // Running again does nothing twice.
    await e.runner.drain();
    expect(e.sim.posts).toHaveLength(1);
  });

  it('sends customContent, the thread and the first comment from platformSpecificData', async () => {
    const t = await createTenant(e);
    const { targetIds } = await seedPost(e.ctx, {
      tenantId: t.userId,
      content: 'base',
      scheduledFor: e.env.clock.now(),
      mediaItems: [{ type: 'image', url: 'https://cdn.example/a.png' }],
      targets: [
        {
          account: t.twitter,
          platformSpecificData: { threadItems: [{ content: 'root' }, { content: 'reply 1' }, { content: 'reply 2' }] },
        },
        { account: t.bluesky, customContent: 'custom', platformSpecificData: { firstComment: 'first!' } },
      ],
    });
    await e.runner.drain();
    const tw = e.sim.posts.find((p) => p.idempotencyKey === targetIds[0])!;
    expect(tw).toMatchObject({ text: 'root', thread: ['reply 1', 'reply 2'], media: ['https://cdn.example/a.png'] });
    const bs = e.sim.posts.find((p) => p.idempotencyKey === targetIds[1])!;
    expect(bs).toMatchObject({ text: 'custom', firstComment: 'first!', thread: [] });
  });

  it('backs off on rate_limited, honouring Retry-After, then publishes once', async () => {
    const { postId, targetId } = await onePost('throttled');
    e.sim.failNext('rate_limited', 1, { retryAfterSec: 600 });
    const before = e.env.clock.now().getTime();
    await e.runner.drain();

    let row = await target(e.ctx, targetId);
    expect(row.status).toBe('pending');
    expect(row.error_message).toMatch(/Retrying at .*Too many requests/);
    expect((await post(e.ctx, postId)).status).toBe('publishing');
    const job = await publishJob(e.ctx, targetId);
    expect(new Date(job!.run_at).getTime()).toBe(before + 600_000);
    expect(job!.locked_by).toBeNull();
    expect(e.sim.posts).toHaveLength(0);

    // Not due yet: nothing is sent.
    e.env.clock.advance(599_000);
    await e.runner.drain();
    expect(e.sim.calls.filter((c) => c.startsWith('POST'))).toHaveLength(1);
    expect((await target(e.ctx, targetId)).status).toBe('pending');
    await advanceToJob(e, targetId);
    await e.runner.drain();
    row = await target(e.ctx, targetId);
    expect(row).toMatchObject({ status: 'published', attempts: 2, error_message: null });
    expect(e.sim.count(targetId)).toBe(1);
    const actions = (await logsOf(e.ctx, postId)).map((l) => `${l.action}:${l.status}:${l.attempt_number}`);
    expect(actions).toEqual(['publish:failed:1', 'rate_limit_pause:pending:1', 'retry:success:2']);
    const pause = (await logsOf(e.ctx, postId))[1];
    expect(JSON.parse(pause.metadata)).toMatchObject({ retryAfterMs: 600_000 });
  });

  it('retries unavailable with growing backoff, then publishes', async () => {
    const { postId, targetId } = await onePost('flaky');
    e.sim.failNext('unavailable', 2);
    await e.runner.drain();
    const first = await publishJob(e.ctx, targetId);
    const delay1 = new Date(first!.run_at).getTime() - e.env.clock.now().getTime();
    expect(delay1).toBeGreaterThanOrEqual(5_000);
    expect(delay1).toBeLessThanOrEqual(10_000);
    await advanceToJob(e, targetId);
    await e.runner.drain();
    const second = await publishJob(e.ctx, targetId);
    const delay2 = new Date(second!.run_at).getTime() - e.env.clock.now().getTime();
    expect(delay2).toBeGreaterThanOrEqual(10_000);
    expect(delay2).toBeLessThanOrEqual(20_000);
    await advanceToJob(e, targetId);
    await e.runner.drain();
    expect(await target(e.ctx, targetId)).toMatchObject({ status: 'published', attempts: 3 });
    expect(e.sim.count(targetId)).toBe(1);
    expect((await post(e.ctx, postId)).status).toBe('published');
  });

  it(`fails a target that stays unavailable after ${MAX_SEND_ATTEMPTS} sends`, async () => {
    const { t, postId, targetId } = await onePost('down');
    e.sim.failNext('unavailable', 100);
    for (let i = 0; i < MAX_SEND_ATTEMPTS; i++) {
      await e.runner.drain();
      if (await publishJob(e.ctx, targetId)) await advanceToJob(e, targetId);
    }
    const row = await target(e.ctx, targetId);
    expect(row).toMatchObject({
      status: 'failed',
      attempts: MAX_SEND_ATTEMPTS,
      error_category: 'platform_error',
      error_source: 'platform',
      error_code: '503',
    });
    expect(await publishJob(e.ctx, targetId)).toBeUndefined();
    expect((await post(e.ctx, postId)).status).toBe('failed');
    expect(await events(e.ctx, t.userId, 'post.failed')).toHaveLength(1);
  });

  it('fails a rejected target at once with the platform error text and category', async () => {
    const { t, postId, targetId } = await onePost('bad content');
    e.sim.failNext('rejected', 1, { message: 'Text contains a banned link' });
    await e.runner.drain();
    const row = await target(e.ctx, targetId);
    expect(row).toMatchObject({
      status: 'failed',
      attempts: 1,
      error_message: 'Text contains a banned link',
      error_category: 'platform_rejected',
      error_source: 'platform',
      error_code: 'content_rejected',
    });
    expect(await publishJob(e.ctx, targetId)).toBeUndefined();
    expect((await post(e.ctx, postId)).status).toBe('failed');
    const failed = await events(e.ctx, t.userId, 'post.failed');
    expect(failed).toHaveLength(1);
    expect(JSON.parse(failed[0].payload).post.platforms[0]).toMatchObject({
      error: 'Text contains a banned link',
      errorCategory: 'platform_rejected',
    });
    const logs = await logsOf(e.ctx, postId);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ action: 'publish', status: 'failed', status_code: 400 });
    expect(JSON.parse(logs[0].response)).toMatchObject({
      errorMessage: 'Text contains a banned link',
      errorCode: 'content_rejected',
    });
    expect(JSON.parse(logs[0].response).rawBody).toContain('banned link');
    expect(e.sim.posts).toHaveLength(0);
  });

  it('refreshes the token once on auth, then publishes with the new token', async () => {
    const { t, postId, targetId } = await onePost('auth me');
    e.sim.failNext('auth', 1);
    await e.runner.drain();
    expect(e.sim.refreshes).toBe(1);
    expect(e.sim.count(targetId)).toBe(1);
    expect(e.sim.posts[0].accessToken).toMatch(/^at_1_/);
    expect(await target(e.ctx, targetId)).toMatchObject({ status: 'published', attempts: 2 });
    const account = await e.ctx.db.kysely
      .selectFrom('account')
      .selectAll()
      .where('account_id', '=', t.bluesky.account_id)
      .executeTakeFirstOrThrow();
    expect(e.ctx.secrets.open(account.access_token!)).toBe(e.sim.posts[0].accessToken);
    expect(e.ctx.secrets.open(account.refresh_token!)).toBe('rt_1');
    const actions = (await logsOf(e.ctx, postId)).map((l) => `${l.action}:${l.status}`);
    expect(actions).toEqual(['publish:failed', 'token_refresh:success', 'retry:success']);
  });

  it('fails with auth_expired when the refreshed token is refused too (one refresh only)', async () => {
    const { targetId } = await onePost('auth twice');
    e.sim.failNext('auth', 2);
    await e.runner.drain();
    expect(e.sim.refreshes).toBe(1);
    expect(await target(e.ctx, targetId)).toMatchObject({
      status: 'failed',
      error_category: 'auth_expired',
      error_source: 'user',
    });
    expect(e.sim.posts).toHaveLength(0);
  });

  it('disconnects the account once when the grant is revoked, and fails its targets with auth_expired', async () => {
    const t = await createTenant(e);
    const a = await seedPost(e.ctx, {
      tenantId: t.userId,
      content: 'one',
      targets: [{ account: t.bluesky }],
      scheduledFor: e.env.clock.now(),
    });
    const b = await seedPost(e.ctx, {
      tenantId: t.userId,
      content: 'two',
      targets: [{ account: t.bluesky }],
      scheduledFor: e.env.clock.now(),
    });
    e.sim.failNext('auth', 2);
    e.sim.revokeRefresh = true;
    await e.runner.drain();
    for (const id of [a.targetIds[0], b.targetIds[0]]) {
      const row = await target(e.ctx, id);
      expect(row.status).toBe('failed');
      expect(row.error_category).toBe('auth_expired');
    }
    const account = await e.ctx.db.kysely
      .selectFrom('account')
      .selectAll()
      .where('account_id', '=', t.bluesky.account_id)
      .executeTakeFirstOrThrow();
    expect(account.is_active).toBe(0);
    const disconnected = await events(e.ctx, t.userId, 'account.disconnected');
    expect(disconnected).toHaveLength(1);
    expect(JSON.parse(disconnected[0].payload).account).toMatchObject({
      accountId: t.bluesky.account_id,
      disconnectionType: 'unintentional',
    });
    expect(e.sim.posts).toHaveLength(0);

    // A later post to the disconnected account fails without calling the platform.
    const c = await seedPost(e.ctx, {
      tenantId: t.userId,
      content: 'three',
      targets: [{ account: t.bluesky }],
      scheduledFor: e.env.clock.now(),
    });
    const calls = e.sim.calls.length;
    await e.runner.drain();
    expect(await target(e.ctx, c.targetIds[0])).toMatchObject({
      status: 'failed',
      error_category: 'account_issue',
      error_code: 'account_inactive',
    });
    expect((await target(e.ctx, c.targetIds[0])).error_message).toMatch(/disconnected; reconnect/);
    expect(e.sim.calls.length).toBe(calls);
    expect((await logsOf(e.ctx, c.postId)).map((l) => `${l.action}:${l.status}`)).toEqual(['publish:skipped']);
    expect(await events(e.ctx, t.userId, 'account.disconnected')).toHaveLength(1);
    // The target's failure is announced like any other, with the reason and no platform id.
    const failed = (await events(e.ctx, t.userId, 'post.platform.failed')).map((ev) => JSON.parse(ev.payload));
    expect(failed.filter((f) => f.post.id === c.postId)).toEqual([
      expect.objectContaining({
        platform: { name: 'bluesky', status: 'failed', error: expect.stringMatching(/disconnected; reconnect/) },
        account: expect.objectContaining({ accountId: t.bluesky.account_id }),
      }),
    ]);
  });

  it('never re-sends after an ambiguous outcome: findPublished finds the post and records it', async () => {
    const { postId, targetId } = await onePost('maybe');
    e.sim.failNext('ambiguous', 1);
    await e.runner.drain();
    let row = await target(e.ctx, targetId);
    expect(row.status).toBe('publishing');
    expect(row.error_message).toMatch(/Outcome unknown, checking/);
    expect((await post(e.ctx, postId)).status).toBe('publishing');
    expect(e.sim.count(targetId)).toBe(1);
    expect(JSON.parse((await publishJob(e.ctx, targetId))!.payload)).toEqual({ targetId, checks: 0 });

    await advanceToJob(e, targetId);
    await e.runner.drain();
    row = await target(e.ctx, targetId);
    expect(row).toMatchObject({
      status: 'published',
      platform_post_id: e.sim.posts[0].id,
      attempts: 1,
      error_message: null,
    });
    expect(e.sim.count(targetId)).toBe(1);
    expect(e.sim.calls.filter((c) => c.startsWith('POST')).length).toBe(1);
    expect((await post(e.ctx, postId)).status).toBe('published');
    const actions = (await logsOf(e.ctx, postId)).map((l) => `${l.action}:${l.status}`);
    expect(actions).toEqual(['publish:failed', 'retry:success']);
  });

  it('treats a timeout after accepting the same way', async () => {
    const { targetId } = await onePost('slow accept');
    e.sim.failNext('timeout', 1, { delayMs: 50 });
    await e.runner.drain();
    await advanceToJob(e, targetId);
    await e.runner.drain();
    expect(await target(e.ctx, targetId)).toMatchObject({ status: 'published', attempts: 1 });
    expect(e.sim.count(targetId)).toBe(1);
  });

  it('re-sends once, safely, when the platform says the ambiguous post is certainly not there', async () => {
    const { targetId } = await onePost('lost');
    e.sim.failNext('lost', 1);
    await e.runner.drain();
    expect((await target(e.ctx, targetId)).status).toBe('publishing');
    expect(e.sim.count(targetId)).toBe(0);
    await advanceToJob(e, targetId);
    await e.runner.drain();
    expect(await target(e.ctx, targetId)).toMatchObject({ status: 'published', attempts: 2 });
    expect(e.sim.count(targetId)).toBe(1);
  });

  it(`stops after ${MAX_SEND_ATTEMPTS} sends that were all lost on the way`, async () => {
    const { postId, targetId } = await onePost('black hole');
    e.sim.failNext('lost', 100);
    for (let i = 0; i < 2 * MAX_SEND_ATTEMPTS + 2 && (await publishJob(e.ctx, targetId)); i++) {
      await e.runner.drain();
      if (await publishJob(e.ctx, targetId)) await advanceToJob(e, targetId);
    }
    expect(await publishJob(e.ctx, targetId)).toBeUndefined();
    expect(await target(e.ctx, targetId)).toMatchObject({
      status: 'failed',
      attempts: MAX_SEND_ATTEMPTS,
      error_category: 'platform_error',
      error_code: 'lost',
    });
    expect(e.sim.posts).toHaveLength(0);
    expect((await post(e.ctx, postId)).status).toBe('failed');
  });

  it('leaves the target unknown, surfaced in status, log and event, when the adapter cannot check', async () => {
    const { t, postId, targetId } = await onePost('no lookup', 'threads');
    e.sim.failNext('ambiguous', 1);
    await e.runner.drain();
    await advanceToJob(e, targetId);
    await e.runner.drain();
    const row = await target(e.ctx, targetId);
    expect(row).toMatchObject({
      status: 'unknown',
      error_category: 'unknown',
      error_source: 'system',
      error_code: 'outcome_unknown',
    });
    expect(row.error_message).toMatch(/offers no way to check/);
    const logs = await logsOf(e.ctx, postId);
    expect(logs.map((l) => `${l.action}:${l.status}`)).toEqual(['publish:failed', 'retry:failed']);
    expect(JSON.parse(logs[1].response).errorMessage).toMatch(/offers no way to check/);
    expect(JSON.parse(logs[1].metadata)).toEqual({ outcome: 'unknown' });
    expect(e.sim.count(targetId)).toBe(1);
    expect(await publishJob(e.ctx, targetId)).toBeUndefined();
    expect((await post(e.ctx, postId)).status).toBe('failed');
    const failed = await events(e.ctx, t.userId, 'post.failed');
    expect(failed).toHaveLength(1);
    expect(JSON.parse(failed[0].payload).post.platforms[0]).toMatchObject({
      status: 'unknown',
      errorCategory: 'unknown',
    });
    // Nothing runs again by itself.
    e.env.clock.advance(3_600_000);
    await e.runner.drain();
    expect(e.sim.count(targetId)).toBe(1);
  });

  it('does not re-send a target found already publishing (a crash after the claim): it checks first', async () => {
    const { targetId } = await onePost('crashed');
    // A worker claimed the target and died before or during the call.
    await e.ctx.db.kysely
      .updateTable('post_target')
      .set({ status: 'publishing', attempts: 1, last_attempt_at: e.env.clock.now().toISOString() })
      .where('target_id', '=', targetId)
      .execute();
    await e.runner.drain();
    // Not found on the platform: back to pending and sent again.
    expect(await target(e.ctx, targetId)).toMatchObject({ status: 'published', attempts: 2 });
    expect(e.sim.count(targetId)).toBe(1);
    expect(e.sim.calls.filter((c) => c.startsWith('GET')).length).toBe(1);
  });

  it('leaves a target unknown after repeated failed checks', async () => {
    const { targetId } = await onePost('check fails');
    await e.ctx.db.kysely
      .updateTable('post_target')
      .set({ status: 'publishing', attempts: 1 })
      .where('target_id', '=', targetId)
      .execute();
    const realFetch = globalThis.fetch;
    // The look-up endpoint is down: each check fails.
    globalThis.fetch = (async (input: any, init?: any) => {
      if (String(input).includes('/by-key/')) return new Response('{"error":"down"}', { status: 503 });
      return realFetch(input, init);
    }) as typeof fetch;
    try {
      for (let i = 0; i < 6; i++) {
        await e.runner.drain();
        if (await publishJob(e.ctx, targetId)) await advanceToJob(e, targetId);
      }
    } finally {
      globalThis.fetch = realFetch;
    }
    const row = await target(e.ctx, targetId);
    expect(row.status).toBe('unknown');
    expect(row.error_message).toMatch(/5 checks/);
    expect(e.sim.posts).toHaveLength(0);
  });

  it('derives partial when one target fails and another publishes, with one post.partial event', async () => {
    const t = await createTenant(e);
    const { postId, targetIds } = await seedPost(e.ctx, {
      tenantId: t.userId,
      content: 'two targets',
      targets: [{ account: t.bluesky }, { account: t.twitter }],
      scheduledFor: e.env.clock.now(),
    });
    e.sim.failNext('rejected', 1);
    await e.runner.drain();
    const rows = await Promise.all(targetIds.map((id) => target(e.ctx, id)));
    expect(rows.map((r) => r.status).sort()).toEqual(['failed', 'published']);
    expect((await post(e.ctx, postId)).status).toBe('partial');
    expect(await events(e.ctx, t.userId, 'post.partial')).toHaveLength(1);
    expect(await events(e.ctx, t.userId, 'post.published')).toHaveLength(0);
    expect(await events(e.ctx, t.userId, 'post.failed')).toHaveLength(0);
  });

  it('keeps the post publishing while a target is in flight, and emits once when the last one settles', async () => {
    const t = await createTenant(e);
    const { postId, targetIds } = await seedPost(e.ctx, {
      tenantId: t.userId,
      content: 'staggered',
      targets: [{ account: t.bluesky }, { account: t.twitter }],
      scheduledFor: e.env.clock.now(),
    });
    e.sim.failNext('unavailable', 1);
    await e.runner.drain();
    const statuses = await Promise.all(targetIds.map((id) => target(e.ctx, id).then((r) => r.status)));
    expect(statuses.sort()).toEqual(['pending', 'published']);
    expect((await post(e.ctx, postId)).status).toBe('publishing');
    expect(await events(e.ctx, t.userId, 'post.published')).toHaveLength(0);
    for (const id of targetIds) if (await publishJob(e.ctx, id)) await advanceToJob(e, id);
    await e.runner.drain();
    expect((await post(e.ctx, postId)).status).toBe('published');
    expect(await events(e.ctx, t.userId, 'post.published')).toHaveLength(1);
  });

  it('skips a target whose post went back to draft', async () => {
    const { postId, targetId } = await onePost('draft again');
    await e.ctx.db.kysely.updateTable('post').set({ status: 'draft' }).where('post_id', '=', postId).execute();
    await e.runner.drain();
    expect((await target(e.ctx, targetId)).status).toBe('pending');
    expect(await publishJob(e.ctx, targetId)).toBeUndefined();
    expect(e.sim.posts).toHaveLength(0);
  });
});
