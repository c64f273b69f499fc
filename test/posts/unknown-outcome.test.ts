import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  advanceToJob,
  createEngineEnv,
  createTenant,
  events,
  post,
  publishJob,
  target,
  type EngineEnv,
} from '../engine/engine-env.js';
import { unknownPost } from './unknown-post.js';

/*
 * A target whose outcome is unknown (an ambiguous answer from a platform that offers no look-up: the
 * test platform's `threads`). Every way out of it is tried: PUT, retry, resolve, delete, listing, and
 * the duplicate rule.
 */
let e: EngineEnv;
beforeAll(async () => {
  e = await createEngineEnv();
});
afterAll(async () => e?.close());
beforeEach(() => e.sim.reset());

describe('a post whose target outcome is unknown', () => {
  it('says on the target what is true and how to settle it (a plain retry leaves it alone)', async () => {
    const { t, postId } = await unknownPost(e);
    const got = await e.env.request(t.apiKey, 'GET', `/v1/posts/${postId}`);
    const message = got.body.post.platforms[0].errorMessage as string;
    expect(message).toMatch(/offers no way to check/);
    expect(message).toContain(`/v1/posts/${postId}/targets/${t.threads.account_id}/resolve`);
    expect(message).toMatch(/resendUnknown/);
    expect(message).not.toMatch(/retry the post only if/);
  });

  it('documents the resolve route and the retry choice in the OpenAPI document', async () => {
    const doc = (await e.env.request(null, 'GET', '/v1/openapi.json')).body;
    const resolve = doc.paths['/v1/posts/{postId}/targets/{target}/resolve'];
    expect(resolve?.post).toBeDefined();
    expect(JSON.stringify(resolve.post.requestBody)).toContain('not_published');
    expect(JSON.stringify(doc.paths['/v1/posts/{postId}/retry'].post.requestBody)).toContain('resendUnknown');
    const status = doc.paths['/v1/posts'].get.parameters.find((p: any) => p.name === 'status');
    expect(JSON.stringify(status.schema)).toContain('unknown');
  });

  it('refuses PUT publishNow or a new time with 409 post_outcome_unknown instead of leaving it waiting with no job', async () => {
    const { t, postId, targetId } = await unknownPost(e);
    const later = new Date(e.env.clock.now().getTime() + 3_600_000).toISOString();
    for (const body of [{ publishNow: true }, { scheduledFor: later }]) {
      const res = await e.env.request(t.apiKey, 'PUT', `/v1/posts/${postId}`, body);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('post_outcome_unknown');
      expect(res.body.error).toMatch(/outcome on threads is unknown/);
      expect(res.body.error).toMatch(/resolve/);
      expect(res.body.details.unknownTargets).toEqual([{ platform: 'threads', accountId: t.threads.account_id }]);
      expect((await post(e.ctx, postId)).status).toBe('failed');
      expect(await publishJob(e.ctx, targetId)).toBeUndefined();
    }
    // Nothing was left stuck: DELETE still works.
    expect((await e.env.request(t.apiKey, 'DELETE', `/v1/posts/${postId}`)).status).toBe(200);
  });

  it('refuses to replace the platforms (that would forget a post that may be public)', async () => {
    const { t, postId } = await unknownPost(e);
    const res = await e.env.request(t.apiKey, 'PUT', `/v1/posts/${postId}`, {
      platforms: [{ platform: 'bluesky', accountId: t.bluesky.account_id }],
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('post_outcome_unknown');
    expect(
      await target(
        e.ctx,
        (
          await e.ctx.db.kysely
            .selectFrom('post_target')
            .select('target_id')
            .where('post_id', '=', postId)
            .executeTakeFirstOrThrow()
        ).target_id,
      ),
    ).toMatchObject({ status: 'unknown' });
  });

  it('answers a retry without a choice by explaining the unknown target and how to settle it', async () => {
    const { t, postId, targetId } = await unknownPost(e);
    const res = await e.env.request(t.apiKey, 'POST', `/v1/posts/${postId}/retry`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('post_outcome_unknown');
    expect(res.body.error).toMatch(/resendUnknown/);
    expect(res.body.error).not.toMatch(/Only failed/);
    expect(await target(e.ctx, targetId)).toMatchObject({ status: 'unknown' });
    expect(e.sim.count(targetId)).toBe(1);
  });

  it('retries the failed targets of a post and says which unknown one it left alone', async () => {
    const t = await createTenant(e);
    const at = (h: number) => new Date(e.env.clock.now().getTime() + h * 3_600_000).toISOString();
    const created = await e.env.request(t.apiKey, 'POST', '/v1/posts', {
      content: `mixed ${Math.random()}`,
      scheduledFor: at(1),
      platforms: [
        { platform: 'threads', accountId: t.threads.account_id },
        { platform: 'twitter', accountId: t.twitter.account_id, scheduledFor: at(3) },
      ],
    });
    const postId = created.body.post._id as string;
    const [threads, twitter] = await e.ctx.db.kysely
      .selectFrom('post_target')
      .select('target_id')
      .where('post_id', '=', postId)
      .orderBy('position')
      .execute();
    await advanceToJob(e, threads.target_id);
    e.sim.failNext('ambiguous', 1);
    await e.runner.drain();
    await advanceToJob(e, threads.target_id);
    await e.runner.drain();
    await advanceToJob(e, twitter.target_id);
    e.sim.failNext('rejected', 1);
    await e.runner.drain();
    expect((await post(e.ctx, postId)).status).toBe('failed');

    const res = await e.env.request(t.apiKey, 'POST', `/v1/posts/${postId}/retry`);
    expect(res.status).toBe(200);
    expect(res.body.message).toMatch(/Left alone: the outcome on threads is unknown/);
    expect(res.body.message).toContain(`/v1/posts/${postId}/targets/{accountId}/resolve`);
    await e.runner.drain();
    expect(await target(e.ctx, twitter.target_id)).toMatchObject({ status: 'published' });
    expect(await target(e.ctx, threads.target_id)).toMatchObject({ status: 'unknown' });
    expect(e.sim.count(threads.target_id)).toBe(1);
    expect((await post(e.ctx, postId)).status).toBe('partial');
  });

  it('sends it again on retry with {"resendUnknown": true}', async () => {
    const { t, postId, targetId } = await unknownPost(e);
    const res = await e.env.request(t.apiKey, 'POST', `/v1/posts/${postId}/retry`, { resendUnknown: true });
    expect(res.status).toBe(200);
    expect(res.body.post.status).toBe('publishing');
    await e.runner.drain();
    expect(await target(e.ctx, targetId)).toMatchObject({ status: 'published' });
    expect((await post(e.ctx, postId)).status).toBe('published');
    expect(e.sim.count(targetId)).toBe(2);
    expect(await events(e.ctx, t.userId, 'post.published')).toHaveLength(1);
  });

  it('records it as published with its URL on resolve, with the post.published event a publish emits', async () => {
    const { t, postId, targetId } = await unknownPost(e);
    const res = await e.env.request(t.apiKey, 'POST', `/v1/posts/${postId}/targets/${t.threads.account_id}/resolve`, {
      outcome: 'published',
      platformPostUrl: 'https://threads.example/p/42',
      platformPostId: '42',
    });
    expect(res.status).toBe(200);
    expect(res.body.post.status).toBe('published');
    expect(res.body.post.platforms[0]).toMatchObject({
      status: 'published',
      platformPostUrl: 'https://threads.example/p/42',
      platformPostId: '42',
    });
    expect(await target(e.ctx, targetId)).toMatchObject({
      status: 'published',
      error_code: null,
      published_at: e.env.clock.now().toISOString(),
    });
    const published = await events(e.ctx, t.userId, 'post.published');
    expect(published).toHaveLength(1);
    expect(JSON.parse(published[0].payload).post.platforms[0]).toMatchObject({
      status: 'published',
      publishedUrl: 'https://threads.example/p/42',
    });
    // The target's own event too, as the engine would emit it.
    const perTarget = await events(e.ctx, t.userId, 'post.platform.published');
    expect(perTarget.map((ev) => JSON.parse(ev.payload))).toEqual([
      expect.objectContaining({
        post: expect.objectContaining({ id: postId, status: 'published' }),
        platform: {
          name: 'threads',
          status: 'published',
          platformPostId: '42',
          publishedUrl: 'https://threads.example/p/42',
        },
        account: expect.objectContaining({ accountId: t.threads.account_id, platform: 'threads' }),
      }),
    ]);
    // Settled: a second resolve is refused, and so is a retry (nothing failed).
    const again = await e.env.request(t.apiKey, 'POST', `/v1/posts/${postId}/targets/threads/resolve`, {
      outcome: 'not_published',
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('target_not_unknown');
    expect(e.sim.count(targetId)).toBe(1);
  });

  it('keeps a draft a draft on resolve not_published, and makes it published when the post was there', async () => {
    for (const outcome of ['not_published', 'published'] as const) {
      const { t, postId } = await unknownPost(e);
      expect((await e.env.request(t.apiKey, 'PUT', `/v1/posts/${postId}`, { isDraft: true })).status).toBe(200);
      const body = outcome === 'published' ? { outcome, platformPostUrl: 'https://threads.example/p/7' } : { outcome };
      const res = await e.env.request(t.apiKey, 'POST', `/v1/posts/${postId}/targets/threads/resolve`, body);
      expect(res.status).toBe(200);
      expect(res.body.post.status).toBe(outcome === 'published' ? 'published' : 'draft');
      expect((await post(e.ctx, postId)).status).toBe(res.body.post.status);
      expect(await events(e.ctx, t.userId, 'post.published')).toHaveLength(outcome === 'published' ? 1 : 0);
    }
  });

  it('lets a retry send it after resolve not_published', async () => {
    const { t, postId, targetId } = await unknownPost(e);
    await e.env.request(t.apiKey, 'POST', `/v1/posts/${postId}/targets/${t.threads.account_id}/resolve`, {
      outcome: 'not_published',
    });
    expect((await e.env.request(t.apiKey, 'POST', `/v1/posts/${postId}/retry`)).status).toBe(200);
    await e.runner.drain();
    expect(await target(e.ctx, targetId)).toMatchObject({ status: 'published' });
    expect(e.sim.count(targetId)).toBe(2);
  });

  it('refuses a bad resolve: a URL missing, an unknown target, another tenant', async () => {
    const { t, postId } = await unknownPost(e);
    const url = `/v1/posts/${postId}/targets/threads/resolve`;
    expect((await e.env.request(t.apiKey, 'POST', url, { outcome: 'published' })).status).toBe(400);
    expect(
      (await e.env.request(t.apiKey, 'POST', url, { outcome: 'published', platformPostUrl: 'javascript:alert(1)' }))
        .status,
    ).toBe(400);
    expect((await e.env.request(t.apiKey, 'POST', url, { outcome: 'maybe' })).status).toBe(400);
    const missing = await e.env.request(t.apiKey, 'POST', `/v1/posts/${postId}/targets/bluesky/resolve`, {
      outcome: 'not_published',
    });
    expect(missing.status).toBe(404);
    const other = await createTenant(e);
    expect((await e.env.request(other.apiKey, 'POST', url, { outcome: 'not_published' })).status).toBe(404);
    expect((await e.env.request(t.apiKey, 'GET', `/v1/posts/${postId}`)).body.post.platforms[0].status).toBe('unknown');
  });
});
