import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEngineEnv, type EngineEnv } from '../engine/engine-env.js';
import { unknownPost } from './unknown-post.js';

let e: EngineEnv;
beforeAll(async () => {
  e = await createEngineEnv();
});
afterAll(async () => e?.close());
beforeEach(() => e.sim.reset());

describe('GET /v1/posts?status=unknown', () => {
  it('is listed by GET /v1/posts?status=unknown until it is settled', async () => {
    const { t, postId } = await unknownPost(e);
    const other = await e.env.request(t.apiKey, 'POST', '/v1/posts', { content: 'fine', isDraft: true });
    expect(other.status).toBe(201);
    const list = async () => (await e.env.request(t.apiKey, 'GET', '/v1/posts?status=unknown')).body;
    expect((await list()).posts.map((p: any) => p._id)).toEqual([postId]);
    expect((await list()).pagination.total).toBe(1);
    await e.env.request(t.apiKey, 'POST', `/v1/posts/${postId}/targets/threads/resolve`, { outcome: 'not_published' });
    expect((await list()).posts).toEqual([]);
  });
});
