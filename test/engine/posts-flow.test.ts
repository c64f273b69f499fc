import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineEnv, createTenant, events, type EngineEnv } from './engine-env.js';

let e: EngineEnv;
beforeAll(async () => {
  e = await createEngineEnv();
});
afterAll(async () => e?.close());

describe('posts API through the engine', () => {
  it('publishes a publishNow post created through the SDK, and the SDK sees the outcome and its logs', async () => {
    const t = await createTenant(e);
    const client = await e.env.sdk(t.apiKey);
    const created = await client.posts.createPost({
      body: {
        content: 'From the SDK',
        publishNow: true,
        platforms: [
          { platform: 'bluesky', accountId: t.bluesky.account_id },
          { platform: 'twitter', accountId: t.twitter.account_id },
        ],
      } as any,
    });
    const postId = (created.data as any).post._id;
    e.sim.failNext('rejected', 1, { message: 'Nope' });
    await e.runner.drain();

    const got = (await client.posts.getPost({ path: { postId } })).data as any;
    expect(got.post.status).toBe('partial');
    // The fault hits whichever target reached the simulator first.
    const failed = got.post.platforms.find((p: any) => p.status === 'failed');
    const published = got.post.platforms.find((p: any) => p.status === 'published');
    expect(failed).toMatchObject({ errorMessage: 'Nope', errorCategory: 'platform_rejected', errorSource: 'platform' });
    expect(published.platformPostId).toBe(e.sim.posts[0].id);
    expect(published.platformPostUrl).toContain(e.sim.posts[0].id);
    expect(await events(e.ctx, t.userId, 'post.partial')).toHaveLength(1);

    const logs = (await client.logs.listLogs()).data as any;
    expect(logs.logs.map((l: any) => `${l.platform}:${l.status}`).sort()).toEqual(
      [`${failed.platform}:failed`, `${published.platform}:success`].sort(),
    );
    const postLogs = await e.env.request(t.apiKey, 'GET', `/v1/posts/${postId}/logs`);
    expect(postLogs.body.count).toBe(2);

    // Retry through the SDK re-sends the failed target only.
    await client.posts.retryPost({ path: { postId } });
    await e.runner.drain();
    const after = (await client.posts.getPost({ path: { postId } })).data as any;
    expect(after.post.status).toBe('published');
    expect(e.sim.posts).toHaveLength(2);
    expect(e.sim.duplicates()).toEqual([]);
    expect(await events(e.ctx, t.userId, 'post.published')).toHaveLength(1);
  });
});
