import { type Zernio } from '@getlatedev/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveConnectedAccount } from '../../src/domain/accounts/save-account.js';
import { publishJobKey } from '../../src/domain/publishing/schedule.js';
import { randomHex } from '../../src/lib/crypto.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { sdkError } from '../helpers/sdk.js';

// Monday 2026-01-05 12:00 UTC = 07:00 in New York.
const NOW = '2026-01-05T12:00:00.000Z';
const NY = 'America/New_York';
const weekdays = [
  { dayOfWeek: 1, time: '09:00' },
  { dayOfWeek: 3, time: '09:00' },
  { dayOfWeek: 5, time: '10:00' },
];

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ now: NOW });
});
afterAll(async () => env?.close());

/** A tenant with a profile, a connected Bluesky account on it, and (optionally) a queue. */
async function setup(
  slots = weekdays,
): Promise<{ client: Zernio; apiKey: string; userId: string; profileId: string; accountId: string; queueId: string }> {
  const { userId, apiKey } = await env.createUser();
  const client = await env.sdk(apiKey);
  const profileId = ((await client.profiles.createProfile({ body: { name: 'Brand' } })).data as any).profile._id;
  const { account } = await saveConnectedAccount(env.ctx, {
    tenantId: userId,
    profileId,
    platform: 'bluesky',
    profile: { platformUserId: randomHex(6), username: `brand_${randomHex(3)}`, displayName: 'Brand' },
    tokens: { accessToken: `token-${randomHex(8)}` },
  });
  const queue = (
    (await client.queue.createQueueSlot({ body: { profileId, name: 'Main', timezone: NY, slots } })).data as any
  ).schedule;
  return { client, apiKey, userId, profileId, accountId: account.account_id, queueId: queue._id };
}

let n = 0;
function queued(s: { profileId: string; accountId: string }, extra: Record<string, unknown> = {}) {
  return {
    content: `queued post ${++n} ${randomHex(4)}`,
    queuedFromProfile: s.profileId,
    platforms: [{ platform: 'bluesky', accountId: s.accountId }],
    ...extra,
  };
}

const post = (res: { data?: unknown }) => (res.data as any).post;

describe('queued posts', () => {
  it('gives each queued post the next free slot of the default queue, schedules it and arms its job', async () => {
    const s = await setup();
    const times: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await s.client.posts.createPost({ body: queued(s) as any });
      expect(res.response.status).toBe(201);
      const p = post(res);
      expect(p).toMatchObject({ status: 'scheduled', queuedFromProfile: s.profileId, queueId: s.queueId });
      times.push(p.scheduledFor);
      const job = await env.ctx.db.kysely
        .selectFrom('job')
        .selectAll()
        .where('key', '=', publishJobKey(p.platforms[0]._id))
        .executeTakeFirstOrThrow();
      expect(job.run_at).toBe(p.scheduledFor);
    }
    // Mon 09:00, Wed 09:00, Fri 10:00 (EST), then next Monday.
    expect(times).toEqual([
      '2026-01-05T14:00:00.000Z',
      '2026-01-07T14:00:00.000Z',
      '2026-01-09T15:00:00.000Z',
      '2026-01-12T14:00:00.000Z',
    ]);
    const events = await env.ctx.db.kysely
      .selectFrom('event')
      .select('type')
      .where('tenant_id', '=', s.userId)
      .execute();
    expect(events.filter((e) => e.type === 'post.scheduled')).toHaveLength(4);
    // next-slot now points past the taken slots.
    const next = (await s.client.queue.getNextQueueSlot({ query: { profileId: s.profileId } })).data as any;
    expect(next.nextSlot).toBe('2026-01-14T09:00:00-05:00');
  });

  it('uses the queue named by queueId', async () => {
    const s = await setup();
    const evening = (
      (
        await s.client.queue.createQueueSlot({
          body: {
            profileId: s.profileId,
            name: 'Evening',
            timezone: 'Europe/Paris',
            slots: [{ dayOfWeek: 2, time: '18:00' }],
          },
        })
      ).data as any
    ).schedule;
    const p = post(await s.client.posts.createPost({ body: queued(s, { queueId: evening._id }) as any }));
    expect(p).toMatchObject({ queueId: evening._id, scheduledFor: '2026-01-06T17:00:00.000Z' });
  });

  it('frees the slot of a deleted or rescheduled queued post', async () => {
    const s = await setup();
    const first = post(await s.client.posts.createPost({ body: queued(s) as any }));
    const second = post(await s.client.posts.createPost({ body: queued(s) as any }));
    expect([first.scheduledFor, second.scheduledFor]).toEqual(['2026-01-05T14:00:00.000Z', '2026-01-07T14:00:00.000Z']);

    await s.client.posts.deletePost({ path: { postId: first._id } });
    const third = post(await s.client.posts.createPost({ body: queued(s) as any }));
    expect(third.scheduledFor).toBe('2026-01-05T14:00:00.000Z');

    await s.client.posts.updatePost({
      path: { postId: second._id },
      body: { scheduledFor: '2026-02-01T12:00:00Z' } as any,
    });
    const fourth = post(await s.client.posts.createPost({ body: queued(s) as any }));
    expect(fourth.scheduledFor).toBe('2026-01-07T14:00:00.000Z');
    const fifth = post(await s.client.posts.createPost({ body: queued(s) as any }));
    expect(fifth.scheduledFor).toBe('2026-01-09T15:00:00.000Z');
  });

  it('gives 50 posts queued at the same instant 50 distinct slots, the first 50 of the queue', async () => {
    const s = await setup();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => s.client.posts.createPost({ body: queued(s) as any })),
    );
    const times = results.map((r: any) => post(r).scheduledFor as string);
    expect(new Set(times).size).toBe(50);
    const preview = ((await s.client.queue.previewQueue({ query: { profileId: s.profileId, count: 50 } })).data as any)
      .slots as string[];
    expect([...times].sort()).toEqual(preview.map((t) => new Date(t).toISOString()));
    const rows = await env.ctx.db.kysely
      .selectFrom('post')
      .select('scheduled_for')
      .where('queue_id', '=', s.queueId)
      .execute();
    expect(new Set(rows.map((r) => r.scheduled_for)).size).toBe(50);
  });

  it('re-times queued posts onto new slots with reshuffleExisting, keeping their order', async () => {
    const s = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(post(await s.client.posts.createPost({ body: queued(s) as any }))._id);
    const res = await s.client.queue.updateQueueSlot({
      body: {
        profileId: s.profileId,
        queueId: s.queueId,
        timezone: NY,
        slots: [
          { dayOfWeek: 2, time: '12:00' },
          { dayOfWeek: 4, time: '16:30' },
        ],
        reshuffleExisting: true,
      },
    });
    expect((res.data as any).reshuffledCount).toBe(3);
    const expected = ['2026-01-06T17:00:00.000Z', '2026-01-08T21:30:00.000Z', '2026-01-13T17:00:00.000Z'];
    for (const [i, id] of ids.entries()) {
      const p = post(await s.client.posts.getPost({ path: { postId: id } }));
      expect(p.scheduledFor).toBe(expected[i]);
      expect(p.platforms[0].scheduledFor ?? p.scheduledFor).toBe(expected[i]);
      const job = await env.ctx.db.kysely
        .selectFrom('job')
        .selectAll()
        .where('key', '=', publishJobKey(p.platforms[0]._id))
        .executeTakeFirstOrThrow();
      expect(job.run_at).toBe(expected[i]);
    }
    // Without reshuffle the posts stay where they are.
    const again = await s.client.queue.updateQueueSlot({
      body: { profileId: s.profileId, timezone: NY, slots: weekdays },
    });
    expect((again.data as any).reshuffledCount).toBe(0);
    expect(post(await s.client.posts.getPost({ path: { postId: ids[0] } })).scheduledFor).toBe(expected[0]);
  });

  it('refuses a queued post without a usable queue', async () => {
    const s = await setup();
    const bare = ((await s.client.profiles.createProfile({ body: { name: 'No queue' } })).data as any).profile._id;
    const none = await sdkError(
      s.client.posts.createPost({ body: queued({ profileId: bare, accountId: s.accountId }) as any }),
    );
    expect(none.statusCode).toBe(400);
    expect(none.details?.fields).toHaveProperty('queuedFromProfile');
    const wrongQueue = await sdkError(
      s.client.posts.createPost({ body: queued(s, { queueId: '000000000000000000000000' }) as any }),
    );
    expect(wrongQueue.statusCode).toBe(400);
    expect(wrongQueue.details?.fields).toHaveProperty('queueId');
    await s.client.queue.updateQueueSlot({
      body: { profileId: s.profileId, timezone: NY, slots: weekdays, active: false },
    });
    const inactive = await sdkError(s.client.posts.createPost({ body: queued(s) as any }));
    expect(inactive.statusCode).toBe(400);
    expect(inactive.code).toBe('queue_inactive');
    const posts = await env.ctx.db.kysely
      .selectFrom('post')
      .select('post_id')
      .where('tenant_id', '=', s.userId)
      .execute();
    expect(posts).toEqual([]);
  });
});
