import type { AppContext } from '../../src/context.js';
import type { JobRunner } from '../../src/jobs/runner.js';
import { PlatformRegistry } from '../../src/platforms/registry.js';
import { listEvents } from '../../src/store/events.js';
import { findJobByKey } from '../../src/store/jobs.js';
import { publishJobKey } from '../../src/domain/publishing/schedule.js';
import { createWorker } from '../../src/worker.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.js';
import { createTestPlatformAdapter } from '../helpers/test-platform-adapter.js';
import { seedAccount, seedProfile } from '../helpers/test-platform-fixtures.js';

/**
 * Herald wired to the test platform simulator: `bluesky` and `twitter` adapters offer findPublished,
 * `threads` does not (an ambiguous outcome there stays unknown).
 */
export interface EngineEnv {
  env: TestEnv;
  sim: TestPlatform;
  runner: JobRunner;
  ctx: AppContext;
  close(): Promise<void>;
}

export async function createEngineEnv(extraEnv: Record<string, string> = {}): Promise<EngineEnv> {
  const sim = await startTestPlatform();
  const platforms = new PlatformRegistry([
    createTestPlatformAdapter({ platform: 'bluesky', baseUrl: sim.url }),
    createTestPlatformAdapter({ platform: 'twitter', baseUrl: sim.url }),
    createTestPlatformAdapter({ platform: 'threads', baseUrl: sim.url, findPublished: false }),
  ]);
  // Media URLs in these tests are served on loopback: OUTBOUND_ALLOW_PRIVATE (development) lets Herald fetch them.
  const env = await createTestEnv({ env: { OUTBOUND_ALLOW_PRIVATE: '1', ...extraEnv }, overrides: { platforms } });
  const runner = await createWorker(env.ctx, { workerId: 'test-worker' });
  return {
    env,
    sim,
    runner,
    ctx: env.ctx,
    async close() {
      await env.close();
      await sim.close();
    },
  };
}

/** A tenant with one profile and an account per platform. */
export async function createTenant(e: EngineEnv) {
  const { userId, apiKey } = await e.env.createUser();
  const profileId = await seedProfile(e.ctx, userId);
  const bluesky = await seedAccount(e.ctx, userId, profileId, 'bluesky');
  const twitter = await seedAccount(e.ctx, userId, profileId, 'twitter');
  const threads = await seedAccount(e.ctx, userId, profileId, 'threads');
  return { userId, apiKey, profileId, bluesky, twitter, threads };
}

export const target = (ctx: AppContext, targetId: string) =>
  ctx.db.kysely.selectFrom('post_target').selectAll().where('target_id', '=', targetId).executeTakeFirstOrThrow();

export const post = (ctx: AppContext, postId: string) =>
  ctx.db.kysely.selectFrom('post').selectAll().where('post_id', '=', postId).executeTakeFirstOrThrow();

export const publishJob = (ctx: AppContext, targetId: string) => findJobByKey(ctx.db.kysely, publishJobKey(targetId));

export const events = (ctx: AppContext, tenantId: string, type?: string) => listEvents(ctx.db.kysely, tenantId, type);

export const logsOf = (ctx: AppContext, postId: string) =>
  ctx.db.kysely
    .selectFrom('publish_log')
    .selectAll()
    .where('post_id', '=', postId)
    .orderBy('created_at')
    .orderBy('log_id')
    .execute();

/** Moves the fake clock to the publish job's run time. */
export async function advanceToJob(e: EngineEnv, targetId: string): Promise<void> {
  const job = await publishJob(e.ctx, targetId);
  if (!job) throw new Error('no publish job');
  const wait = new Date(job.run_at).getTime() - e.env.clock.now().getTime();
  if (wait > 0) e.env.clock.advance(wait);
}
