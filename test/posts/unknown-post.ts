import { expect } from 'vitest';
import { advanceToJob, createTenant, post, target, type EngineEnv } from '../engine/engine-env.js';

/**
 * A publishNow post to the test platform's `threads` (no look-up) whose send answered ambiguously:
 * its target ends `unknown` and the post `failed`, through the API and the engine only.
 */
export async function unknownPost(e: EngineEnv, content = `unknown ${Math.random()}`) {
  const t = await createTenant(e);
  const created = await e.env.request(t.apiKey, 'POST', '/v1/posts', {
    content,
    publishNow: true,
    platforms: [{ platform: 'threads', accountId: t.threads.account_id }],
  });
  expect(created.status).toBe(201);
  const postId = created.body.post._id as string;
  const targetId = (
    await e.ctx.db.kysely
      .selectFrom('post_target')
      .select('target_id')
      .where('post_id', '=', postId)
      .executeTakeFirstOrThrow()
  ).target_id;
  e.sim.failNext('ambiguous', 1);
  await e.runner.drain();
  await advanceToJob(e, targetId);
  await e.runner.drain();
  expect(await target(e.ctx, targetId)).toMatchObject({ status: 'unknown' });
  expect((await post(e.ctx, postId)).status).toBe('failed');
  return { t, postId, targetId, content };
}
