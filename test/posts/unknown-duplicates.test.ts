import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEngineEnv, target, type EngineEnv } from '../engine/engine-env.js';
import { unknownPost } from './unknown-post.js';

let e: EngineEnv;
beforeAll(async () => {
  e = await createEngineEnv();
});
afterAll(async () => e?.close());
beforeEach(() => e.sim.reset());

describe('the duplicate rule and a target whose outcome is unknown', () => {
  it('makes it an ordinary failed target on resolve not_published, whose content is no longer a duplicate', async () => {
    const { t, postId, targetId, content } = await unknownPost(e);
    const create = () =>
      e.env.request(t.apiKey, 'POST', `/v1/posts`, {
        content,
        publishNow: true,
        platforms: [{ platform: 'threads', accountId: t.threads.account_id }],
      });
    // Unsettled, the content counts: it may be public. The 409 says how to settle it.
    const dup = await create();
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('duplicate_content');
    expect(dup.body.error).toMatch(/outcome there is unknown/);

    const res = await e.env.request(t.apiKey, 'POST', `/v1/posts/${postId}/targets/threads/resolve`, {
      outcome: 'not_published',
    });
    expect(res.status).toBe(200);
    expect(res.body.post.status).toBe('failed');
    expect(await target(e.ctx, targetId)).toMatchObject({ status: 'failed', error_code: 'not_published' });
    expect((await create()).status).toBe(201);
    await e.runner.drain();
  });
});
