import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishJobKey } from '../../src/domain/publishing/schedule.js';
import { PlatformError, type PlatformAdapter } from '../../src/platforms/types.js';
import { listEvents } from '../../src/store/events.js';
import { claimDueJobs, findJobByKey } from '../../src/store/jobs.js';
import { listTargets, updatePost, updateTarget } from '../../src/store/posts.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { createTenant, sdkError } from '../helpers/posts.js';

let env: TestEnv;
const START = '2026-03-01T12:00:00.000Z';
beforeAll(async () => {
  env = await createTestEnv({ now: START });
});
afterAll(async () => env?.close());

const job = (targetId: string) => findJobByKey(env.ctx.db.kysely, publishJobKey(targetId));
const data = (res: { data?: unknown }) => res.data as any;

describe('POST /v1/posts through the SDK', () => {
  it('saves a draft: no job, no event, targets pending', async () => {
    const t = await createTenant(env);
    const acc = await t.account('twitter');
    const res = await t.sdk.posts.createPost({
      body: { content: 'draft text', isDraft: true, platforms: [{ platform: 'twitter', accountId: acc }] },
    });
    expect(res.response.status).toBe(201);
    const post = data(res).post;
    expect(data(res).message).toBe('Post saved as draft');
    expect(post.status).toBe('draft');
    expect(post.platforms[0].status).toBe('pending');
    expect(post.platforms[0].accountId).toEqual({
      _id: acc,
      platform: 'twitter',
      username: expect.any(String),
      displayName: expect.any(String),
      isActive: true,
    });
    expect(await job(post.platforms[0]._id)).toBeUndefined();
    expect(await listEvents(env.ctx.db.kysely, t.userId, 'post.scheduled')).toHaveLength(0);
  });

  it('makes a draft when no mode is given, and a draft may omit platforms', async () => {
    const t = await createTenant(env);
    const res = await t.sdk.posts.createPost({ body: { content: 'just an idea' } });
    expect(data(res).post.status).toBe('draft');
    expect(data(res).post.platforms).toEqual([]);
  });

  it('schedules a post: targets pending, one job per target at the time, post.scheduled in the outbox', async () => {
    const t = await createTenant(env);
    const [x, bsky] = [await t.account('twitter'), await t.account('bluesky')];
    const res = await t.sdk.posts.createPost({
      body: {
        content: 'scheduled hello',
        scheduledFor: '2026-03-02T10:00:00',
        timezone: 'America/New_York',
        platforms: [
          { platform: 'twitter', accountId: x },
          {
            platform: 'bluesky',
            accountId: bsky,
            customContent: 'bluesky words',
            platformSpecificData: { threadItems: [{ content: 'reply' }] },
          },
        ],
      },
    });
    expect(res.response.status).toBe(201);
    const post = data(res).post;
    expect(data(res).message).toBe('Post scheduled successfully');
    expect(post.status).toBe('scheduled');
    expect(post.scheduledFor).toBe('2026-03-02T15:00:00.000Z');
    expect(post.timezone).toBe('America/New_York');
    expect(post.platforms.map((p: any) => p.status)).toEqual(['pending', 'pending']);
    expect(post.platforms[1].customContent).toBe('bluesky words');
    expect(post.platforms[1].platformSpecificData).toEqual({ threadItems: [{ content: 'reply' }] });
    for (const p of post.platforms) expect((await job(p._id))?.run_at).toBe('2026-03-02T15:00:00.000Z');
    const events = await listEvents(env.ctx.db.kysely, t.userId, 'post.scheduled');
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].payload).post).toMatchObject({
      id: post._id,
      status: 'scheduled',
      scheduledFor: '2026-03-02T15:00:00.000Z',
    });
  });

  it('publishes now: status publishing, jobs due immediately, even over per-target times', async () => {
    const t = await createTenant(env);
    const acc = await t.account('threads');
    const res = await t.sdk.posts.createPost({
      body: {
        content: 'now!',
        publishNow: true,
        platforms: [{ platform: 'threads', accountId: acc, scheduledFor: '2026-05-01T00:00:00Z' }],
      },
    });
    const post = data(res).post;
    expect(post.status).toBe('publishing');
    expect(post.platforms[0].status).toBe('pending');
    expect((await job(post.platforms[0]._id))?.run_at).toBe(START);
    expect(await listEvents(env.ctx.db.kysely, t.userId, 'post.scheduled')).toHaveLength(0);
  });

  it("treats a scheduledFor in the past as publish now, and a per-target time as that target's own job time", async () => {
    const t = await createTenant(env);
    const [a, b] = [await t.account('linkedin'), await t.account('facebook')];
    const past = await t.sdk.posts.createPost({
      body: {
        content: 'late',
        scheduledFor: '2026-02-01T00:00:00Z',
        platforms: [{ platform: 'linkedin', accountId: a }],
      },
    });
    expect(data(past).post.status).toBe('publishing');
    expect((await job(data(past).post.platforms[0]._id))?.run_at).toBe(START);

    const mixed = await t.sdk.posts.createPost({
      body: {
        content: 'two times',
        scheduledFor: '2026-03-03T09:00:00Z',
        platforms: [
          { platform: 'linkedin', accountId: a },
          {
            platform: 'facebook',
            accountId: b,
            scheduledFor: '2026-03-03T12:30:00',
            platformSpecificData: { pageId: 'p1' },
          },
        ],
      },
    });
    const [pa, pb] = data(mixed).post.platforms;
    expect(pb.scheduledFor).toBe('2026-03-03T12:30:00.000Z');
    expect((await job(pa._id))?.run_at).toBe('2026-03-03T09:00:00.000Z');
    expect((await job(pb._id))?.run_at).toBe('2026-03-03T12:30:00.000Z');
  });

  it('isDraft wins over publishNow and scheduledFor', async () => {
    const t = await createTenant(env);
    const acc = await t.account('twitter');
    const res = await t.sdk.posts.createPost({
      body: {
        content: 'wait',
        isDraft: true,
        publishNow: true,
        scheduledFor: '2026-03-05T00:00:00Z',
        platforms: [{ platform: 'twitter', accountId: acc }],
      },
    });
    expect(data(res).post.status).toBe('draft');
    expect(await job(data(res).post.platforms[0]._id)).toBeUndefined();
  });

  it('lets the same account repeat with different pageId values', async () => {
    const t = await createTenant(env);
    const fb = await t.account('facebook');
    const res = await t.sdk.posts.createPost({
      body: {
        content: 'to two pages',
        scheduledFor: '2026-03-04T00:00:00Z',
        platforms: [
          { platform: 'facebook', accountId: fb, platformSpecificData: { pageId: '111' } },
          { platform: 'facebook', accountId: fb, platformSpecificData: { pageId: '222' } },
        ],
      },
    });
    expect(data(res).post.platforms.map((p: any) => p.platformSpecificData.pageId)).toEqual(['111', '222']);
    const same = await sdkError(
      t.sdk.posts.createPost({
        body: {
          content: 'to one page twice',
          platforms: [
            { platform: 'facebook', accountId: fb, platformSpecificData: { pageId: '111' } },
            { platform: 'facebook', accountId: fb, platformSpecificData: { pageId: '111' } },
          ],
          isDraft: true,
        },
      }),
    );
    expect(same.statusCode).toBe(400);
    expect(same.code).toBe('duplicate_target');
  });
});

describe('GET /v1/posts', () => {
  it('filters by status, platform, profile, dates and text, sorts, and pages', async () => {
    const t = await createTenant(env);
    const x = await t.account('twitter');
    const other = await env.request(t.apiKey, 'POST', '/v1/profiles', { name: 'Second' });
    const bsky = await t.account('bluesky', { profileId: other.body.profile._id });
    const mk = (content: string, extra: Record<string, unknown>) =>
      t.sdk.posts.createPost({ body: { content, ...extra } as any }).then((r: any) => data(r).post);
    const p1 = await mk('alpha Apple', {
      scheduledFor: '2026-03-10T10:00:00Z',
      platforms: [{ platform: 'twitter', accountId: x }],
    });
    const p2 = await mk('beta banana', {
      scheduledFor: '2026-03-20T10:00:00Z',
      platforms: [{ platform: 'bluesky', accountId: bsky }],
    });
    const p3 = await mk('gamma apple pie', { isDraft: true, platforms: [{ platform: 'twitter', accountId: x }] });
    const p4 = await mk('delta 100%', {
      scheduledFor: '2026-04-02T10:00:00Z',
      platforms: [
        { platform: 'twitter', accountId: x },
        { platform: 'bluesky', accountId: bsky },
      ],
    });

    const ids = async (query: Record<string, unknown>) =>
      data(await t.sdk.posts.listPosts({ query: query as any })).posts.map((p: any) => p._id);
    // Default: scheduled-desc (scheduledFor, else createdAt), limit 10.
    expect(await ids({})).toEqual([p4._id, p2._id, p1._id, p3._id]);
    expect(await ids({ sortBy: 'scheduled-asc' })).toEqual([p3._id, p1._id, p2._id, p4._id]);
    expect(await ids({ status: 'draft' })).toEqual([p3._id]);
    expect(await ids({ platform: 'bluesky' })).toEqual([p4._id, p2._id]);
    expect(await ids({ profileId: other.body.profile._id })).toEqual([p4._id, p2._id]);
    expect(await ids({ dateFrom: '2026-03-10', dateTo: '2026-03-20' })).toEqual([p2._id, p1._id]);
    expect(
      await ids({ dateFrom: '2026-03-15T00:00:00Z', dateTo: '2026-04-30T00:00:00Z', platform: 'twitter' }),
    ).toEqual([p4._id]);
    expect(await ids({ search: 'APPLE' })).toEqual([p1._id, p3._id]);
    expect(await ids({ search: '100%' })).toEqual([p4._id]);
    expect(await ids({ search: '%' })).toEqual([p4._id]);

    const page2 = data(await t.sdk.posts.listPosts({ query: { page: 2, limit: 3 } }));
    expect(page2.pagination).toEqual({ page: 2, limit: 3, total: 4, pages: 2 });
    expect(page2.posts.map((p: any) => p._id)).toEqual([p3._id]);
    const first = data(await t.sdk.posts.listPosts());
    expect(first.pagination).toEqual({ page: 1, limit: 10, total: 4, pages: 1 });
    expect(first.posts[0].platforms[1].accountId._id).toBe(bsky);
  });
});

describe('GET /v1/posts/calendar', () => {
  it("lists a period's posts in time order with only what a calendar shows, within the caller's tenant and scope", async () => {
    const t = await createTenant(env);
    const x = await t.account('twitter');
    const other = await env.request(t.apiKey, 'POST', '/v1/profiles', { name: 'Second' });
    const bsky = await t.account('bluesky', { profileId: other.body.profile._id });
    const mk = async (body: Record<string, unknown>) =>
      (await env.request(t.apiKey, 'POST', '/v1/posts', body)).body.post;
    const long = 'x'.repeat(150) + 'é'.repeat(100);
    const late = await mk({
      content: 'late',
      title: 'The late one',
      scheduledFor: '2026-03-20T10:00:00Z',
      platforms: [{ platform: 'bluesky', accountId: bsky }],
    });
    const both = await mk({
      content: long,
      scheduledFor: '2026-03-10T10:00:00Z',
      platforms: [
        { platform: 'twitter', accountId: x },
        { platform: 'bluesky', accountId: bsky },
      ],
    });
    await mk({
      content: 'outside',
      scheduledFor: '2026-04-20T10:00:00Z',
      platforms: [{ platform: 'twitter', accountId: x }],
    });
    // Another tenant's post in the same period is not listed.
    const stranger = await createTenant(env);
    await env.request(stranger.apiKey, 'POST', '/v1/posts', {
      content: 'not yours',
      scheduledFor: '2026-03-12T10:00:00Z',
      platforms: [{ platform: 'twitter', accountId: await stranger.account('twitter') }],
    });

    const cal = (key: string, query: string) => env.request(key, 'GET', `/v1/posts/calendar?${query}`);
    const res = await cal(t.apiKey, 'dateFrom=2026-03-01T00:00:00Z&dateTo=2026-03-31');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      posts: [
        {
          _id: both._id,
          excerpt: long.slice(0, 200),
          status: 'scheduled',
          scheduledFor: '2026-03-10T10:00:00.000Z',
          createdAt: both.createdAt,
          platforms: ['twitter', 'bluesky'],
        },
        {
          _id: late._id,
          title: 'The late one',
          excerpt: 'late',
          status: 'scheduled',
          scheduledFor: '2026-03-20T10:00:00.000Z',
          createdAt: late.createdAt,
          platforms: ['bluesky'],
        },
      ],
      total: 2,
      truncated: false,
    });
    // The filters of GET /v1/posts, and a limit that says it cut the list.
    expect(
      (await cal(t.apiKey, `dateFrom=2026-03-01&dateTo=2026-03-31&profileId=${t.profileId}`)).body.posts.map(
        (p: any) => p._id,
      ),
    ).toEqual([both._id]);
    expect(
      (await cal(t.apiKey, 'dateFrom=2026-03-01&dateTo=2026-03-31&platform=bluesky&status=scheduled')).body.total,
    ).toBe(2);
    expect((await cal(t.apiKey, 'dateFrom=2026-03-01&dateTo=2026-03-31&limit=1')).body).toMatchObject({
      posts: [{ _id: both._id }],
      total: 2,
      truncated: true,
    });
    // A key limited to the second profile sees only the posts all of whose targets are in it.
    const scoped = await env.request(t.apiKey, 'POST', '/v1/api-keys', {
      name: 'scoped',
      scope: 'profiles',
      profileIds: [other.body.profile._id],
    });
    expect(
      (await cal(scoped.body.apiKey.key, 'dateFrom=2026-03-01&dateTo=2026-03-31')).body.posts.map((p: any) => p._id),
    ).toEqual([late._id]);

    for (const bad of [
      'dateTo=2026-03-31',
      'dateFrom=2026-03-01',
      'dateFrom=soon&dateTo=2026-03-31',
      'dateFrom=2026-03-01&dateTo=2026-03-31&limit=5001',
    ]) {
      const r = await cal(t.apiKey, bad);
      expect(r.status, bad).toBe(400);
      expect(r.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
  });
});

describe('GET, PUT and DELETE /v1/posts/{id}', () => {
  it('gets a post by id', async () => {
    const t = await createTenant(env);
    const acc = await t.account('twitter');
    const created = data(
      await t.sdk.posts.createPost({
        body: { content: 'get me', isDraft: true, platforms: [{ platform: 'twitter', accountId: acc }] },
      }),
    ).post;
    const got = data(await t.sdk.posts.getPost({ path: { postId: created._id } })).post;
    expect(got).toEqual(created);
  });

  it('reschedules: the job row moves to the new time, and no second post.scheduled is emitted', async () => {
    const t = await createTenant(env);
    const acc = await t.account('twitter');
    const post = data(
      await t.sdk.posts.createPost({
        body: {
          content: 'move me',
          scheduledFor: '2026-03-05T08:00:00Z',
          platforms: [{ platform: 'twitter', accountId: acc }],
        },
      }),
    ).post;
    const targetId = post.platforms[0]._id;
    expect((await job(targetId))?.run_at).toBe('2026-03-05T08:00:00.000Z');
    const res = await t.sdk.posts.updatePost({
      path: { postId: post._id },
      body: { scheduledFor: '2026-03-06T09:30:00', timezone: 'Europe/Berlin', content: 'moved' } as any,
    });
    const updated = data(res).post;
    expect(updated.scheduledFor).toBe('2026-03-06T08:30:00.000Z');
    expect(updated.content).toBe('moved');
    expect(updated.platforms[0]._id).toBe(targetId);
    expect((await job(targetId))?.run_at).toBe('2026-03-06T08:30:00.000Z');
    expect(await listEvents(env.ctx.db.kysely, t.userId, 'post.scheduled')).toHaveLength(1);
  });

  it('refuses to move a post whose publish job a worker has already claimed (409), leaving the job alone', async () => {
    const t = await createTenant(env);
    const acc = await t.account('twitter');
    const post = data(
      await t.sdk.posts.createPost({
        body: {
          content: 'due soon',
          scheduledFor: '2026-03-01T12:05:00Z',
          platforms: [{ platform: 'twitter', accountId: acc }],
        },
      }),
    ).post;
    const targetId = post.platforms[0]._id;
    env.clock.set('2026-03-01T12:05:00.000Z');
    try {
      const claimed = await claimDueJobs(env.ctx.db, {
        workerId: 'w1',
        now: env.clock.now(),
        leaseUntil: new Date(env.clock.now().getTime() + 60_000),
        limit: 100,
        tasks: ['post.publish'],
      });
      expect(claimed.map((j) => j.key)).toContain(publishJobKey(targetId));
      const err = await sdkError(
        t.sdk.posts.updatePost({ path: { postId: post._id }, body: { scheduledFor: '2026-03-09T00:00:00Z' } as any }),
      );
      expect(err.statusCode).toBe(409);
      expect(err.code).toBe('post_publishing');
      expect((await job(targetId))?.run_at).toBe('2026-03-01T12:05:00.000Z');
      expect(data(await t.sdk.posts.getPost({ path: { postId: post._id } })).post.scheduledFor).toBe(
        '2026-03-01T12:05:00.000Z',
      );
    } finally {
      await env.ctx.db.kysely.deleteFrom('job').where('key', '=', publishJobKey(targetId)).execute();
      env.clock.set(START);
    }
  });

  it('turns a scheduled post back into a draft (job removed) and schedules it again (job and event back)', async () => {
    const t = await createTenant(env);
    const acc = await t.account('threads');
    const post = data(
      await t.sdk.posts.createPost({
        body: {
          content: 'toggle',
          scheduledFor: '2026-03-05T08:00:00Z',
          platforms: [{ platform: 'threads', accountId: acc }],
        },
      }),
    ).post;
    const targetId = post.platforms[0]._id;
    const draft = data(
      await t.sdk.posts.updatePost({ path: { postId: post._id }, body: { isDraft: true } as any }),
    ).post;
    expect(draft.status).toBe('draft');
    expect(await job(targetId)).toBeUndefined();
    const again = data(
      await t.sdk.posts.updatePost({
        path: { postId: post._id },
        body: { scheduledFor: '2026-03-07T00:00:00Z' } as any,
      }),
    ).post;
    expect(again.status).toBe('scheduled');
    expect((await job(targetId))?.run_at).toBe('2026-03-07T00:00:00.000Z');
    expect(await listEvents(env.ctx.db.kysely, t.userId, 'post.scheduled')).toHaveLength(2);
  });

  it('replaces the targets when platforms is given (old jobs gone, new ones armed)', async () => {
    const t = await createTenant(env);
    const [x, b] = [await t.account('twitter'), await t.account('bluesky')];
    const post = data(
      await t.sdk.posts.createPost({
        body: {
          content: 'swap',
          scheduledFor: '2026-03-05T08:00:00Z',
          platforms: [{ platform: 'twitter', accountId: x }],
        },
      }),
    ).post;
    const updated = data(
      await t.sdk.posts.updatePost({
        path: { postId: post._id },
        body: { platforms: [{ platform: 'bluesky', accountId: b }] } as any,
      }),
    ).post;
    expect(updated.platforms.map((p: any) => p.platform)).toEqual(['bluesky']);
    expect(await job(post.platforms[0]._id)).toBeUndefined();
    expect((await job(updated.platforms[0]._id))?.run_at).toBe('2026-03-05T08:00:00.000Z');
  });

  it('validates an update like a creation', async () => {
    const t = await createTenant(env);
    const x = await t.account('twitter');
    const post = data(
      await t.sdk.posts.createPost({
        body: {
          content: 'short',
          scheduledFor: '2026-03-05T08:00:00Z',
          platforms: [{ platform: 'twitter', accountId: x }],
        },
      }),
    ).post;
    const err = await sdkError(
      t.sdk.posts.updatePost({ path: { postId: post._id }, body: { content: 'x'.repeat(281) } as any }),
    );
    expect(err.statusCode).toBe(400);
    expect((err.details as any).fields['platforms.0.content'][0]).toMatch(
      /twitter: text is 281 weighted characters; the limit is 280/,
    );
  });

  it('reschedules a failed post: failed targets pending again, job armed, post.scheduled emitted', async () => {
    const t = await createTenant(env);
    const acc = await t.account('twitter');
    const post = data(
      await t.sdk.posts.createPost({
        body: {
          content: 'will fail',
          scheduledFor: '2026-03-05T08:00:00Z',
          platforms: [{ platform: 'twitter', accountId: acc }],
        },
      }),
    ).post;
    const targetId = post.platforms[0]._id;
    // What the engine does when the platform refuses the post for good.
    await env.ctx.db.transaction(async (tx) => {
      await updateTarget(tx, targetId, { status: 'failed', error_message: 'rejected', error_category: 'user_content' });
      await updatePost(tx, t.userId, post._id, { status: 'failed' });
      await tx.deleteFrom('job').where('key', '=', publishJobKey(targetId)).execute();
    });
    const res = data(
      await t.sdk.posts.updatePost({
        path: { postId: post._id },
        body: { scheduledFor: '2026-03-08T00:00:00Z' } as any,
      }),
    ).post;
    expect(res.status).toBe('scheduled');
    expect(res.platforms[0]).toMatchObject({ status: 'pending' });
    expect(res.platforms[0].errorMessage).toBeUndefined();
    expect((await job(targetId))?.run_at).toBe('2026-03-08T00:00:00.000Z');
    expect(await listEvents(env.ctx.db.kysely, t.userId, 'post.scheduled')).toHaveLength(2);
  });

  it('refuses to edit a published post (400) and one being published (409)', async () => {
    const t = await createTenant(env);
    const acc = await t.account('twitter');
    const now = data(
      await t.sdk.posts.createPost({
        body: { content: 'going', publishNow: true, platforms: [{ platform: 'twitter', accountId: acc }] },
      }),
    ).post;
    expect(
      (await sdkError(t.sdk.posts.updatePost({ path: { postId: now._id }, body: { content: 'x' } as any }))).statusCode,
    ).toBe(409);
    await updatePost(env.ctx.db.kysely, t.userId, now._id, { status: 'published' });
    const err = await sdkError(t.sdk.posts.updatePost({ path: { postId: now._id }, body: { content: 'x' } as any }));
    expect(err.statusCode).toBe(400);
    expect(err.code).toBe('post_not_editable');
  });

  it('deletes a scheduled post with its jobs, and refuses a published one', async () => {
    const t = await createTenant(env);
    const acc = await t.account('twitter');
    const post = data(
      await t.sdk.posts.createPost({
        body: {
          content: 'bye',
          scheduledFor: '2026-03-05T08:00:00Z',
          platforms: [{ platform: 'twitter', accountId: acc }],
        },
      }),
    ).post;
    const res = await t.sdk.posts.deletePost({ path: { postId: post._id } });
    expect(data(res).message).toBe('Post deleted successfully');
    expect(await job(post.platforms[0]._id)).toBeUndefined();
    expect(await listTargets(env.ctx.db.kysely, [post._id])).toEqual([]);
    expect((await sdkError(t.sdk.posts.getPost({ path: { postId: post._id } }))).statusCode).toBe(404);

    const pub = data(
      await t.sdk.posts.createPost({
        body: {
          content: 'stays',
          scheduledFor: '2026-03-05T08:00:00Z',
          platforms: [{ platform: 'twitter', accountId: acc }],
        },
      }),
    ).post;
    await updateTarget(env.ctx.db.kysely, pub.platforms[0]._id, { status: 'published', platform_post_id: '123' });
    await updatePost(env.ctx.db.kysely, t.userId, pub._id, { status: 'published' });
    const err = await sdkError(t.sdk.posts.deletePost({ path: { postId: pub._id } }));
    expect(err.statusCode).toBe(400);
    expect(err.code).toBe('post_published');
  });
});

describe('POST /v1/posts/{id}/retry and /unpublish', () => {
  it('is 409 while publishing, re-arms only the failed targets of a partial post, and 400 for a post that did not fail', async () => {
    const t = await createTenant(env);
    const [x, b] = [await t.account('twitter'), await t.account('bluesky')];
    const post = data(
      await t.sdk.posts.createPost({
        body: {
          content: 'retry me',
          publishNow: true,
          platforms: [
            { platform: 'twitter', accountId: x },
            { platform: 'bluesky', accountId: b },
          ],
        },
      }),
    ).post;
    const [tx1, tx2] = post.platforms.map((p: any) => p._id);
    const busy = await sdkError(t.sdk.posts.retryPost({ path: { postId: post._id } }));
    expect(busy.statusCode).toBe(409);
    expect(busy.code).toBe('post_publishing');

    // The engine's outcome: twitter published, bluesky failed -> partial; both jobs done.
    env.clock.advance(60_000);
    await env.ctx.db.transaction(async (tx) => {
      await updateTarget(tx, tx1, { status: 'published', platform_post_id: 'tw-1' });
      await updateTarget(tx, tx2, {
        status: 'failed',
        error_message: 'upstream 503',
        error_category: 'platform_error',
      });
      await updatePost(tx, t.userId, post._id, { status: 'partial' });
      await tx
        .deleteFrom('job')
        .where('key', 'in', [publishJobKey(tx1), publishJobKey(tx2)])
        .execute();
    });
    const res = await t.sdk.posts.retryPost({ path: { postId: post._id } });
    const retried = data(res).post;
    expect(retried.status).toBe('publishing');
    expect(retried.platforms.map((p: any) => p.status)).toEqual(['published', 'pending']);
    expect(await job(tx1)).toBeUndefined();
    expect((await job(tx2))?.run_at).toBe(env.clock.now().toISOString());

    const draft = data(await t.sdk.posts.createPost({ body: { content: 'nothing failed', isDraft: true } })).post;
    const err = await sdkError(t.sdk.posts.retryPost({ path: { postId: draft._id } }));
    expect(err.statusCode).toBe(400);
    expect(err.code).toBe('post_not_failed');
  });

  it('unpublishes through the adapter and marks the post cancelled', async () => {
    const calls: string[] = [];
    const fake: PlatformAdapter = {
      platform: 'bluesky',
      publish: async () => ({ platformPostId: 'x', platformPostUrl: null }),
      unpublish: async (account, platformPostId) => {
        calls.push(`${account.accountId}:${platformPostId}`);
      },
    };
    const saved = env.ctx.platforms.get('bluesky');
    env.ctx.platforms.set(fake);
    try {
      const t = await createTenant(env);
      const b = await t.account('bluesky');
      const post = data(
        await t.sdk.posts.createPost({
          body: {
            content: 'remove later',
            scheduledFor: '2026-03-09T00:00:00Z',
            platforms: [{ platform: 'bluesky', accountId: b }],
          },
        }),
      ).post;
      const notYet = await sdkError(
        t.sdk.posts.unpublishPost({ path: { postId: post._id }, body: { platform: 'bluesky' } }),
      );
      expect(notYet.statusCode).toBe(400);
      expect(notYet.code).toBe('not_published');
      await updateTarget(env.ctx.db.kysely, post.platforms[0]._id, {
        status: 'published',
        platform_post_id: 'at://did/post/1',
      });
      await updatePost(env.ctx.db.kysely, t.userId, post._id, { status: 'published' });
      const res = await t.sdk.posts.unpublishPost({ path: { postId: post._id }, body: { platform: 'bluesky' } });
      expect(data(res).success).toBe(true);
      expect(calls).toEqual([`${b}:at://did/post/1`]);
      const after = data(await t.sdk.posts.getPost({ path: { postId: post._id } })).post;
      expect(after.status).toBe('cancelled');
      expect(after.platforms[0].status).toBe('cancelled');
      // A platform that refuses: 502 with the platform's words, and the post stays as it was.
      const other = data(
        await t.sdk.posts.createPost({
          body: {
            content: 'cannot remove',
            scheduledFor: '2026-03-09T00:00:00Z',
            platforms: [{ platform: 'bluesky', accountId: b }],
          },
        }),
      ).post;
      await updateTarget(env.ctx.db.kysely, other.platforms[0]._id, {
        status: 'published',
        platform_post_id: 'at://did/post/2',
      });
      await updatePost(env.ctx.db.kysely, t.userId, other._id, { status: 'published' });
      fake.unpublish = async () => {
        throw new PlatformError('rejected', 'Could not find record', { status: 400 });
      };
      const refused = await env.request(t.apiKey, 'POST', `/v1/posts/${other._id}/unpublish`, { platform: 'bluesky' });
      expect(refused.status).toBe(502);
      expect(refused.body).toMatchObject({ code: 'platform_error', error: 'bluesky: Could not find record' });
      expect((await env.request(t.apiKey, 'GET', `/v1/posts/${other._id}`)).body.post.status).toBe('published');
      const ig = await env.request(t.apiKey, 'POST', `/v1/posts/${post._id}/unpublish`, { platform: 'instagram' });
      expect(ig.status).toBe(400);
      expect(ig.body.code).toBe('unsupported_platform');
    } finally {
      if (saved) env.ctx.platforms.set(saved);
    }
  });
});
