import { expect } from 'vitest';
import { PUBLISH_TASK } from '../../src/domain/publishing/schedule.js';
import type { TestEnv } from './context.js';
import type { TestPlatform } from './test-platform.js';
import { seedAccount, seedPosts, seedProfile, type SeedPost } from './test-platform-fixtures.js';

/** Seeding and checks shared by the engine tests that publish through worker processes. */

export async function seedTenant(
  env: TestEnv,
  posts: number,
  targetsPerPost: 1 | 2,
  spreadMs: number,
): Promise<{ tenantId: string; targetIds: string[] }> {
  const { userId } = await env.createUser();
  const profileId = await seedProfile(env.ctx, userId);
  // Ten posts an account: well within each platform's documented budget (X: 100 in 15 minutes), even
  // split between the several workers a crash test starts (docs/pacing.md), so pacing never holds one back.
  const perPlatform = Math.max(1, Math.ceil(posts / 10));
  type Account = Awaited<ReturnType<typeof seedAccount>>;
  const blueskies: Account[] = [];
  const twitters: Account[] = [];
  for (let i = 0; i < perPlatform; i++) {
    blueskies.push(await seedAccount(env.ctx, userId, profileId, 'bluesky', `bluesky-${i}`));
    twitters.push(await seedAccount(env.ctx, userId, profileId, 'twitter', `twitter-${i}`));
  }
  const start = Date.now();
  const list: SeedPost[] = Array.from({ length: posts }, (_, i) => ({
    tenantId: userId,
    content: `post ${i}`,
    targets:
      targetsPerPost === 2
        ? [{ account: blueskies[i % perPlatform] }, { account: twitters[i % perPlatform] }]
        : [{ account: i % 2 ? blueskies[i % perPlatform] : twitters[i % perPlatform] }],
    scheduledFor: new Date(start + Math.floor((i / posts) * spreadMs)),
  }));
  const targetIds = await seedPosts(env.ctx, list);
  return { tenantId: userId, targetIds };
}

export async function outstanding(env: TestEnv, tenantId: string): Promise<{ targets: number; jobs: number }> {
  const db = env.ctx.db.kysely;
  const t = await db
    .selectFrom('post_target')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('status', '!=', 'published')
    .executeTakeFirstOrThrow();
  const j = await db
    .selectFrom('job')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('task', '=', PUBLISH_TASK)
    .executeTakeFirstOrThrow();
  return { targets: Number(t.n), jobs: Number(j.n) };
}

export async function assertAllPublishedOnce(
  env: TestEnv,
  sim: TestPlatform,
  tenantId: string,
  targetIds: string[],
  posts: number,
) {
  expect(sim.duplicates()).toEqual([]);
  const missing = targetIds.filter((id) => sim.count(id) !== 1);
  expect(missing).toEqual([]);
  expect(await outstanding(env, tenantId)).toEqual({ targets: 0, jobs: 0 });
  const db = env.ctx.db.kysely;
  const notPublished = await db
    .selectFrom('post')
    .select('post_id')
    .where('tenant_id', '=', tenantId)
    .where('status', '!=', 'published')
    .execute();
  expect(notPublished).toEqual([]);
  // Exactly one outcome event per post, and one per target (post.platform.published).
  const events = await db
    .selectFrom('event')
    .select((eb) => ['type', eb.fn.countAll<number>().as('n')])
    .where('tenant_id', '=', tenantId)
    .where('type', 'like', 'post.%')
    .groupBy('type')
    .execute();
  expect(events.map((e) => ({ type: e.type, n: Number(e.n) })).sort((a, b) => a.type.localeCompare(b.type))).toEqual([
    { type: 'post.platform.published', n: targetIds.length },
    { type: 'post.published', n: posts },
  ]);
  // Each target's platform id is the one the simulator gave.
  const rows = await db
    .selectFrom('post_target')
    .select(['target_id', 'platform_post_id'])
    .where('tenant_id', '=', tenantId)
    .execute();
  const byKey = new Map(sim.posts.map((p) => [p.idempotencyKey, p.id]));
  expect(rows.filter((r) => byKey.get(r.target_id) !== r.platform_post_id)).toEqual([]);
}
