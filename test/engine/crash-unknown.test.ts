import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineEnv, createTenant, post, target, type EngineEnv } from './engine-env.js';

/*
 * Issue 14, finding 11: a worker killed during a burst leaves the targets it had claimed `publishing`.
 * On a platform with no look-up (Telegram; `threads` on the test platform) Herald cannot tell whether
 * the request left, so it never sends again by itself: the target ends `unknown`, even when nothing was
 * sent. What matters is that a person finds it and settles it.
 *
 * The crash is made with a store-level write (the claim a dead worker committed, its lease gone): a
 * state only a crash reaches. test/engine/processes.test.ts kills real worker processes.
 */
let e: EngineEnv;
beforeAll(async () => {
  e = await createEngineEnv();
});
afterAll(async () => e?.close());

describe('a target claimed by a worker killed before it sent (no look-up)', () => {
  it('ends unknown without being sent, is listed by status=unknown, and is sent once when the person says so', async () => {
    const t = await createTenant(e);
    const created = await e.env.request(t.apiKey, 'POST', '/v1/posts', {
      content: 'burst item',
      publishNow: true,
      platforms: [{ platform: 'threads', accountId: t.threads.account_id }],
    });
    const postId = created.body.post._id as string;
    const { target_id: targetId } = await e.ctx.db.kysely
      .selectFrom('post_target')
      .select('target_id')
      .where('post_id', '=', postId)
      .executeTakeFirstOrThrow();
    // The dead worker's claim: committed before any platform call, then nothing.
    const iso = e.env.clock.now().toISOString();
    await e.ctx.db.kysely
      .updateTable('post_target')
      .set({ status: 'publishing', attempts: 1, last_attempt_at: iso })
      .where('target_id', '=', targetId)
      .execute();

    await e.runner.drain();
    expect(await target(e.ctx, targetId)).toMatchObject({ status: 'unknown', error_code: 'outcome_unknown' });
    expect((await post(e.ctx, postId)).status).toBe('failed');
    expect(e.sim.count(targetId)).toBe(0);
    e.env.clock.advance(86_400_000);
    await e.runner.drain();
    expect(e.sim.count(targetId)).toBe(0);

    const listed = await e.env.request(t.apiKey, 'GET', '/v1/posts?status=unknown');
    expect(listed.status).toBe(200);
    expect(listed.body.posts.map((p: any) => p._id)).toEqual([postId]);
    expect(listed.body.posts[0].platforms[0]).toMatchObject({ status: 'unknown' });

    // The person looked: it is not there.
    expect((await e.env.request(t.apiKey, 'POST', `/v1/posts/${postId}/retry`, { resendUnknown: true })).status).toBe(
      200,
    );
    await e.runner.drain();
    expect(e.sim.count(targetId)).toBe(1);
    expect(await target(e.ctx, targetId)).toMatchObject({ status: 'published' });
    expect((await e.env.request(t.apiKey, 'GET', '/v1/posts?status=unknown')).body.posts).toEqual([]);
  });
});
