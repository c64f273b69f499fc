import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitTargetChange } from '../../src/domain/publishing/outcome.js';
import { publishJobKey } from '../../src/domain/publishing/schedule.js';
import { claimDueJobs, findJobByKey } from '../../src/store/jobs.js';
import { moveTarget } from '../../src/store/publishing.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { seedAccount, seedPost, seedProfile } from '../helpers/test-platform-fixtures.js';

/*
 * A publish run whose lease ran out keeps running until it notices, and another worker takes its job
 * over meanwhile. Three processes on a loaded host (issue 36) showed the order that matters: the second
 * worker checks, finds nothing, sends again and is waiting for the platform when the first run's late
 * outcome arrives. That outcome used to be written over the second run's claim (both moves were from
 * `publishing`): the target went back to `pending`, the second run's published post was then not
 * recorded, and no job was left. A run that no longer holds its job changes nothing.
 */

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => env?.close());

const LEASE_MS = 60_000;

async function claim(workerId: string) {
  const now = env.clock.now();
  const [job] = await claimDueJobs(env.ctx.db, {
    workerId,
    now,
    leaseUntil: new Date(now.getTime() + LEASE_MS),
    limit: 1,
  });
  return job;
}

const statusOf = async (targetId: string) =>
  (
    await env.ctx.db.kysely
      .selectFrom('post_target')
      .select(['status', 'platform_post_id'])
      .where('target_id', '=', targetId)
      .executeTakeFirstOrThrow()
  ).status;

describe('a publish run that lost its job', () => {
  it("writes nothing over the claim of the worker that took the job over; that worker's outcome stands", async () => {
    const { userId } = await env.createUser();
    const profileId = await seedProfile(env.ctx, userId);
    const account = await seedAccount(env.ctx, userId, profileId, 'bluesky');
    const { postId, targetIds } = await seedPost(env.ctx, {
      tenantId: userId,
      content: 'one post, two workers',
      targets: [{ account }],
      scheduledFor: env.clock.now(),
    });
    const [targetId] = targetIds;
    const change = (patch: Record<string, unknown> & { status: string }) => ({
      postId,
      targetId,
      from: 'publishing',
      patch,
    });

    // Worker A claims the job and the target, and sends; its lease runs out before it hears back.
    const a = await claim('worker-a');
    expect(a.key).toBe(publishJobKey(targetId));
    expect(await moveTarget(env.ctx.db.kysely, targetId, 'pending', { status: 'publishing' })).toBe(true);
    env.clock.advance(LEASE_MS + 1);

    // Worker B takes the job over, finds no post on the platform, and sends again: its own claim.
    const b = await claim('worker-b');
    expect(b.job_id).toBe(a.job_id);
    const job = (workerId: string) => ({ jobId: a.job_id, workerId });
    await commitTargetChange(env.ctx, job('worker-b'), change({ status: 'pending' }), [], {
      retryAt: env.clock.now(),
      payload: { targetId },
      error: 'not found on the platform after an ambiguous outcome',
    });
    const b2 = await claim('worker-b');
    expect(b2.job_id).toBe(a.job_id);
    expect(await moveTarget(env.ctx.db.kysely, targetId, 'pending', { status: 'publishing' })).toBe(true);

    // A's late outcome (its send was cut off: retry later) changes nothing.
    const stale = await commitTargetChange(
      env.ctx,
      job('worker-a'),
      change({ status: 'pending', error_message: 'Retrying after: unreachable' }),
      [],
      { retryAt: new Date(env.clock.now().getTime() + 10_000), payload: { targetId }, error: 'unreachable' },
    );
    expect(stale).toBe(false);
    expect(await statusOf(targetId)).toBe('publishing');

    // B's post went out: it is recorded, and no job is left.
    const published = await commitTargetChange(
      env.ctx,
      job('worker-b'),
      change({ status: 'published', platform_post_id: 'at://did:plc:b/app.bsky.feed.post/1' }),
      [],
      { finish: true },
    );
    expect(published).toBe(true);
    expect(await statusOf(targetId)).toBe('published');
    expect(await findJobByKey(env.ctx.db.kysely, publishJobKey(targetId))).toBeUndefined();
  });
});
