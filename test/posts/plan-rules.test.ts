import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { createTenant, sdkError } from '../helpers/posts.js';

let env: TestEnv;
beforeAll(async () => {
  // The plan's request rate limit is not what is tested here (Build allows 120 requests per minute).
  env = await createTestEnv({ now: '2026-03-31T23:00:00.000Z', env: { RATE_LIMIT_DISABLED: 'true' } });
});
afterAll(async () => env?.close());

describe('plan rules', () => {
  it('allows 20 posts per calendar month (UTC) on Free, then 403 post_limit_reached; a new month starts over', async () => {
    const t = await createTenant(env, { plan: 'free' });
    for (let i = 0; i < 20; i++) {
      const res = await env.request(t.apiKey, 'POST', '/v1/posts', { content: `draft ${i}`, isDraft: true });
      expect(res.status).toBe(201);
    }
    const err = await sdkError(t.sdk.posts.createPost({ body: { content: 'one too many', isDraft: true } }));
    expect(err.statusCode).toBe(403);
    expect(err.code).toBe('post_limit_reached');
    expect(err.details).toMatchObject({ limit: 20, current: 20 });
    env.clock.set('2026-04-01T00:00:00.000Z');
    const april = await env.request(t.apiKey, 'POST', '/v1/posts', { content: 'april', isDraft: true });
    expect(april.status).toBe(201);
    env.clock.set('2026-03-31T23:00:00.000Z');
  });

  it('allows 120 on Build', async () => {
    const t = await createTenant(env, { plan: 'build' });
    for (let i = 0; i < 119; i++) {
      expect((await env.request(t.apiKey, 'POST', '/v1/posts', { content: `build ${i}`, isDraft: true })).status).toBe(
        201,
      );
    }
    expect((await env.request(t.apiKey, 'POST', '/v1/posts', { content: '120th', isDraft: true })).status).toBe(201);
    const over = await env.request(t.apiKey, 'POST', '/v1/posts', { content: '121st', isDraft: true });
    expect(over.status).toBe(403);
    expect(over.body.code).toBe('post_limit_reached');
  });

  it('lets exactly one of several concurrent identical posts through', async () => {
    const t = await createTenant(env);
    const acc = await t.account('bluesky');
    const body = {
      content: 'racing twins',
      scheduledFor: '2026-04-02T10:00:00Z',
      platforms: [{ platform: 'bluesky', accountId: acc }],
    };
    const results = await Promise.all(
      Array.from({ length: 6 }, () => env.request(t.apiKey, 'POST', '/v1/posts', body)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const list = await env.request(t.apiKey, 'GET', '/v1/posts');
    expect(list.body.pagination.total).toBe(1);
  });

  it('refuses the same content to the same account within 24 hours with 409 and existingPostId', async () => {
    const t = await createTenant(env);
    const acc = await t.account('twitter');
    const other = await t.account('twitter');
    const body = (accountId: string, content = 'Same words') => ({
      content,
      mediaItems: [{ type: 'image', url: 'https://cdn.example.com/a.png' }],
      scheduledFor: '2026-04-02T10:00:00Z',
      platforms: [{ platform: 'twitter', accountId }],
    });
    const first = await env.request(t.apiKey, 'POST', '/v1/posts', body(acc));
    expect(first.status).toBe(201);
    const dup = await sdkError(t.sdk.posts.createPost({ body: body(acc) as any }));
    expect(dup.statusCode).toBe(409);
    expect(dup.details).toEqual({ accountId: acc, platform: 'twitter', existingPostId: first.body.post._id });
    // The earlier post only waits for its time: the message says so, not "sent".
    const again = await env.request(t.apiKey, 'POST', '/v1/posts', body(acc));
    expect(again.body.error).toBe(
      'The same content is already scheduled for this account (details.existingPostId names the post)',
    );
    // Another account, other text, or other media: not a duplicate.
    expect((await env.request(t.apiKey, 'POST', '/v1/posts', body(other))).status).toBe(201);
    expect((await env.request(t.apiKey, 'POST', '/v1/posts', body(acc, 'Other words'))).status).toBe(201);
    // A draft with the same content is not a duplicate until it is scheduled.
    const draft = await env.request(t.apiKey, 'POST', '/v1/posts', { ...body(acc), isDraft: true });
    expect(draft.status).toBe(201);
    const scheduleDraft = await env.request(t.apiKey, 'PUT', `/v1/posts/${draft.body.post._id}`, {
      scheduledFor: '2026-04-03T10:00:00Z',
    });
    expect(scheduleDraft.status).toBe(409);
    expect(scheduleDraft.body.details.existingPostId).toBe(first.body.post._id);
    // Updating the original itself is not a duplicate of itself.
    expect(
      (await env.request(t.apiKey, 'PUT', `/v1/posts/${first.body.post._id}`, { scheduledFor: '2026-04-02T11:00:00Z' }))
        .status,
    ).toBe(200);
    // After 24 hours the same content is allowed again.
    env.clock.advance(24 * 60 * 60 * 1000 + 1);
    expect(
      (await env.request(t.apiKey, 'POST', '/v1/posts', { ...body(acc), scheduledFor: '2026-04-05T10:00:00Z' })).status,
    ).toBe(201);
    env.clock.set('2026-03-31T23:00:00.000Z');
  });

  it('says the content was already sent when the earlier post is on its way, not scheduled', async () => {
    const t = await createTenant(env);
    const acc = await t.account('twitter');
    const body = { content: 'Sent words', publishNow: true, platforms: [{ platform: 'twitter', accountId: acc }] };
    expect((await env.request(t.apiKey, 'POST', '/v1/posts', body)).status).toBe(201);
    const dup = await env.request(t.apiKey, 'POST', '/v1/posts', body);
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('duplicate_content');
    expect(dup.body.error).toBe('The same content was already sent to this account within the last 24 hours');
  });
});
