import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tiktokSimulator } from '../../../src/sandbox/tiktok/index.js';
import { upsertJob } from '../../../src/store/jobs.js';
import { createPlatformE2E, followAuthUrl, getPost } from '../../helpers/oauth-e2e.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

/*
 * post.tiktok.url_resolved end to end through the official SDK: TikTok completes a direct post while its
 * moderation still withholds the post id (the simulator's `moderationMs`), so Herald records the target
 * published with the publish id and no URL; once the simulator makes the post public, the follow-up job
 * records the id and URL, which getPost shows, and a real receiver gets the event exactly once, in the
 * shape of WebhookPayloadPostPlatform. A post never made public is given up after a day, with a log row
 * and no event. A second tenant sees none of it.
 */

const h = createPlatformE2E('tiktok', (now) => [tiktokSimulator({ now })], {
  env: { WEBHOOK_ALLOW_INSECURE: '1' },
  settleStepMs: 15_000,
});
const data = (res: { data?: unknown }) => res.data as any;
const receivers: WebhookReceiver[] = [];
const EVENTS = ['post.platform.published', 'post.tiktok.url_resolved'] as const;

afterAll(async () => {
  for (const r of receivers) await r.close();
});

/** A tenant with one TikTok login, a webhook on its own receiver, and moderation held for that creator. */
async function tenantWithHook(login: string) {
  const { sdk, profileId } = await h.tenant(`TikTok ${login}`);
  const openId = `open-${login}`;
  await sandboxCall(h.e.sandbox, 'POST', '/sandbox/tiktok/_oauth/users', {
    id: openId,
    username: login,
    name: `Creator ${login}`,
  });
  const start = data(
    await sdk.connect.getConnectUrl({
      path: { platform: 'tiktok' },
      query: { profileId, redirect_url: `${h.e.baseUrl}/health` },
    }),
  );
  await followAuthUrl(`${start.authUrl}&login_hint=${openId}`);
  const [account] = data(await sdk.accounts.listAccounts({ query: { profileId } })).accounts;
  const receiver = await startWebhookReceiver();
  receivers.push(receiver);
  const res = await sdk.webhooks.createWebhookSettings({
    body: { name: `late ${login}`, url: receiver.url, events: [...EVENTS] },
  });
  expect(res.response.status, JSON.stringify(res.error ?? null)).toBe(200);
  await moderation(openId, null);
  return { sdk, profileId, account, openId, receiver, login };
}

/** How long TikTok's moderation holds this creator's direct posts (null: until changed). */
const moderation = (openId: string, moderationMs: number | null) =>
  sandboxCall(h.e.sandbox, 'POST', '/sandbox/tiktok/_config', {
    openId,
    moderationMs,
  });

/** Runs the worker while the clock moves `totalMs` in steps of `stepMs`. */
async function pass(totalMs: number, stepMs = 60_000) {
  for (let t = 0; t < totalMs; t += stepMs) {
    await h.e.runner.drain();
    h.e.env.clock.advance(stepMs);
  }
  await h.e.runner.drain();
}

/** The SDK's error for a refused call (it throws on 4xx). */
const refused = (call: Promise<unknown>) =>
  call.then(
    () => null,
    (error: any) => error,
  );

const named = (r: WebhookReceiver, event: string) => r.received.filter((x) => x.json?.event === event);

async function publishVideo(t: Awaited<ReturnType<typeof tenantWithHook>>, name: string) {
  const res = await t.sdk.posts.createPost({
    body: {
      publishNow: true,
      content: `moderated ${name}`,
      mediaItems: [{ type: 'video', url: h.e.mediaUrl(name, 200_000, 'video/mp4') }],
      platforms: [{ platform: 'tiktok', accountId: t.account._id }],
    } as any,
  });
  expect(res.response.status, JSON.stringify(res.error ?? null)).toBe(201);
  return data(res).post._id as string;
}

let a: Awaited<ReturnType<typeof tenantWithHook>>;
let b: Awaited<ReturnType<typeof tenantWithHook>>;

beforeAll(async () => {
  a = await tenantWithHook('ttLateA');
  b = await tenantWithHook('ttLateB');
});

describe('a TikTok post made public after its moderation', () => {
  it('is published without URL, then gets its id and URL and exactly one post.tiktok.url_resolved', async () => {
    const postId = await publishVideo(a, 'late-a.mp4');
    await h.settle();
    const before = await getPost(a.sdk, postId);
    expect(before.status).toBe('published');
    const standIn = before.platforms[0].platformPostId as string;
    expect(standIn).toMatch(/^v_pub_file/);
    expect(before.platforms[0].platformPostUrl ?? null).toBeNull();
    expect((await h.inspect()).filter((p) => p.author === a.openId)).toEqual([]);
    const published = named(a.receiver, 'post.platform.published');
    expect(published).toHaveLength(1);
    expect(published[0].json.platform).toEqual({
      name: 'tiktok',
      status: 'published',
      platformPostId: standIn,
    });

    // Still in moderation for a while, and TikTok's status endpoint down twice: asked again, nothing
    // changes and nothing is sent.
    await sandboxCall(h.e.sandbox, 'POST', '/sandbox/tiktok/_faults', {
      kind: 'unavailable',
      count: 2,
      op: 'lookup',
    });
    await pass(20 * 60_000);
    // Both failures were met (the follow-up asked through them).
    expect((await sandboxCall(h.e.sandbox, 'GET', '/sandbox/tiktok/_inspect')).faults.lookup?.count ?? 0).toBe(0);
    expect((await getPost(a.sdk, postId)).platforms[0].platformPostId).toBe(standIn);
    expect(named(a.receiver, 'post.tiktok.url_resolved')).toEqual([]);

    // Moderation passes: the next status fetch gives the post id. Two more runs of the follow-up, due
    // now, race the armed one (workers that took over a job, a job armed twice): one of them records it.
    await moderation(a.openId, 0);
    await extraRun(before.platforms[0]._id, standIn, 'race1');
    await extraRun(before.platforms[0]._id, standIn, 'race2');
    await pass(70 * 60_000);
    const [tiktokPost] = (await h.inspect()).filter((p) => p.author === a.openId);
    expect(tiktokPost.id).toMatch(/^\d{19}$/);
    const url = `https://www.tiktok.com/@ttLateA/video/${tiktokPost.id}`;
    const after = await getPost(a.sdk, postId);
    expect(after.status).toBe('published');
    expect(after.platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: tiktokPost.id,
      platformPostUrl: url,
    });

    const resolved = named(a.receiver, 'post.tiktok.url_resolved');
    expect(resolved).toHaveLength(1);
    expect(resolved[0].json).toMatchObject({
      event: 'post.tiktok.url_resolved',
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      timestamp: expect.any(String),
      post: {
        id: postId,
        status: 'published',
        platforms: [
          {
            platform: 'tiktok',
            accountId: a.account._id,
            status: 'published',
            platformPostId: tiktokPost.id,
            publishedUrl: url,
          },
        ],
      },
      platform: {
        name: 'tiktok',
        status: 'published',
        platformPostId: tiktokPost.id,
        publishedUrl: url,
      },
      account: {
        accountId: a.account._id,
        platform: 'tiktok',
        username: 'ttLateA',
      },
    });
    // The id is written as digits: a JavaScript number would have rounded it.
    expect(resolved[0].raw).toContain(`"platformPostId":"${tiktokPost.id}"`);

    // The job run again after it resolved (a retry after a crash): nothing twice.
    await extraRun(before.platforms[0]._id, standIn, 'again');
    await pass(2 * 24 * 3600_000, 3600_000);
    expect(named(a.receiver, 'post.tiktok.url_resolved')).toHaveLength(1);
    expect((await getPost(a.sdk, postId)).platforms[0].platformPostUrl).toBe(url);

    // The other tenant got nothing of it, and cannot read the post.
    expect(b.receiver.received).toEqual([]);
    expect(await refused(b.sdk.posts.getPost({ path: { postId } }))).toMatchObject({ statusCode: 404 });
  });

  it('gives up quietly after a day when TikTok never makes the post public: a log row, no event', async () => {
    a.receiver.received.length = 0;
    const postId = await publishVideo(b, 'late-b.mp4');
    await h.settle();
    const before = await getPost(b.sdk, postId);
    const standIn = before.platforms[0].platformPostId as string;
    expect(before.platforms[0].platformPostUrl ?? null).toBeNull();
    expect(named(b.receiver, 'post.platform.published')).toHaveLength(1);

    await pass(25 * 3600_000, 3600_000);
    // Past the window: moderation passing now is never seen.
    await moderation(b.openId, 0);
    await pass(6 * 3600_000, 3600_000);
    const after = await getPost(b.sdk, postId);
    expect(after.platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: standIn,
    });
    expect(after.platforms[0].platformPostUrl ?? null).toBeNull();
    expect(named(b.receiver, 'post.tiktok.url_resolved')).toEqual([]);
    const logs = data(await b.sdk.logs.listLogs({ query: { type: 'publishing' } as any })).logs as any[];
    const gaveUp = logs.filter((l) => l.error_code === 'url_not_public');
    expect(gaveUp).toHaveLength(1);
    expect(gaveUp[0].error_message).toContain('did not make the post public within 24 hours');
    // Tenant A neither receives nor lists any of it.
    expect(a.receiver.received).toEqual([]);
    const logsA = data(await a.sdk.logs.listLogs({ query: { type: 'publishing' } as any })).logs as any[];
    expect(logsA.filter((l) => l.error_code === 'url_not_public')).toEqual([]);
  });

  it('accepts post.tiktok.url_resolved in a webhook subscription, and refuses an unknown event', async () => {
    const hooks = data(await a.sdk.webhooks.getWebhookSettings()).webhooks as any[];
    expect(hooks[0].events).toEqual([...EVENTS]);
    const wrong = await refused(
      a.sdk.webhooks.updateWebhookSettings({
        body: {
          _id: hooks[0]._id,
          events: ['post.tiktok.url_resolved', 'post.tiktok.nope'],
        } as any,
      }),
    );
    expect(wrong).toMatchObject({ statusCode: 400 });
  });
});

/** Another `post.resolve-url` job for the same target, due now, under its own key. */
async function extraRun(targetId: string, standIn: string, name: string) {
  const now = h.e.env.clock.now();
  await upsertJob(
    h.e.env.ctx.db.kysely,
    {
      task: 'post.resolve-url',
      key: `post.resolve-url:${name}-${targetId}`,
      payload: {
        targetId,
        standIn,
        handle: { publishId: standIn, kind: 'video', username: 'ttLateA' },
        since: new Date(now.getTime() - 3600_000).toISOString(),
      },
      runAt: now,
      maxAttempts: 3,
    },
    now,
  );
}
