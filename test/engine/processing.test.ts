import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLISH_TASK, processingCheckJobKey, publishJobKey } from '../../src/domain/publishing/schedule.js';
import { claimDueJobs, enqueueJob, findJobByKey } from '../../src/store/jobs.js';
import { finishJob } from '../../src/store/publishing.js';
import { twitterSimulator } from '../../src/sandbox/twitter/index.js';
import { createOAuthE2E, followAuthUrl, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { sandboxCall } from '../helpers/sandbox-env.js';

/*
 * Media the platform processes after the upload (X video) is a state the engine owns: the target waits
 * in `processing` with the media ids on it, no worker is held, and a check job finishes the post once
 * the platform says the media are ready. One worker slot (WORKER_CONCURRENCY=1), a fake clock, and the
 * X simulator processing each video for 60 s of that clock.
 */
let e: OAuthE2E;
const data = (res: { data?: unknown }) => res.data as any;

beforeAll(async () => {
  e = await createOAuthE2E((now) => [twitterSimulator({ now })], { env: { WORKER_CONCURRENCY: '1' } });
});
afterAll(async () => e?.close());

async function connectedTenant(xUser: { id: string; username: string }) {
  const { apiKey } = await e.env.createUser();
  const sdk = await e.env.sdk(apiKey);
  const profile = data(await sdk.profiles.createProfile({ body: { name: `X ${xUser.username}` } })).profile;
  await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_oauth/users', { ...xUser, name: xUser.username });
  const start = data(
    await sdk.connect.getConnectUrl({
      path: { platform: 'twitter' },
      query: { profileId: profile._id, redirect_url: `${e.baseUrl}/health` },
    }),
  );
  await followAuthUrl(`${start.authUrl}&login_hint=${xUser.id}`);
  const accounts = data(await sdk.accounts.listAccounts({ query: { profileId: profile._id } })).accounts;
  return { sdk, accountId: accounts[0]._id as string, xUserId: xUser.id };
}

async function createNow(sdk: any, accountId: string, body: Record<string, unknown>) {
  const res = await sdk.posts.createPost({
    body: { publishNow: true, platforms: [{ platform: 'twitter', accountId }], ...body },
  });
  expect(res.response.status).toBe(201);
  return data(res).post._id as string;
}

const getPost = async (sdk: any, postId: string) => data(await sdk.posts.getPost({ path: { postId } })).post;

async function simPosts(authorId: string): Promise<any[]> {
  const inspected = await sandboxCall(e.sandbox, 'GET', '/sandbox/twitter/_inspect');
  return inspected.posts.filter((p: any) => p.extra?.authorId === authorId);
}

/** Upload sessions the X simulator saw (one per medium uploaded). */
const initializeCalls = () =>
  e.sandbox.state('twitter').calls.filter((c) => c.path.endsWith('/2/media/upload/initialize')).length;

/** Lets the fake clock run `ms` in steps, running what falls due at each step. */
async function runFor(ms: number, step = 5_000): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    e.env.clock.advance(step);
    await e.runner.drain();
  }
}

const video = (name: string) => [{ type: 'video', url: e.mediaUrl(name, 3000, 'video/mp4') }];

describe('media processing is a state the engine owns', () => {
  it('a video waits in processing with no worker held: a text post due meanwhile publishes, then the video publishes once', async () => {
    const t = await connectedTenant({ id: '3100000000000000001', username: 'proc_wait' });
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_config', { processingMs: 60_000 });
    const uploadsBefore = initializeCalls();
    const videoPost = await createNow(t.sdk, t.accountId, { content: 'a video', mediaItems: video('wait.mp4') });
    await e.runner.drain();

    const waiting = await getPost(t.sdk, videoPost);
    expect(waiting.status).toBe('publishing');
    expect(waiting.platforms[0].status).toBe('processing');
    const check = await findJobByKey(e.env.ctx.db.kysely, processingCheckJobKey(await targetIdOf(videoPost)));
    expect(check).toMatchObject({ locked_by: null });
    expect(await simPosts(t.xUserId)).toEqual([]);

    // With the only worker slot free, a text post due now goes out while the video is processed.
    const textPost = await createNow(t.sdk, t.accountId, { content: 'plain words' });
    await e.runner.drain();
    expect((await getPost(t.sdk, textPost)).status).toBe('published');
    expect((await getPost(t.sdk, videoPost)).platforms[0].status).toBe('processing');

    await runFor(90_000);
    const done = await getPost(t.sdk, videoPost);
    expect(done.status).toBe('published');
    expect(done.platforms[0]).toMatchObject({ status: 'published', platformPostId: expect.stringMatching(/^\d+$/) });
    const posts = await simPosts(t.xUserId);
    expect(posts.map((p) => p.text).sort()).toEqual(['a video', 'plain words']);
    expect(posts.find((p) => p.text === 'a video').media).toEqual([
      { type: 'video', mimeType: 'video/mp4', size: 3000 },
    ]);
    expect(initializeCalls() - uploadsBefore).toBe(1);
    expect(await findJobByKey(e.env.ctx.db.kysely, processingCheckJobKey(await targetIdOf(videoPost)))).toBeUndefined();
  });

  it('a processing that ends in an error fails the target with the platform reason', async () => {
    const t = await connectedTenant({ id: '3100000000000000002', username: 'proc_fail' });
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_config', { processingMs: 10_000 });
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_faults', { op: 'processing', kind: 'rejected', count: 1 });
    const postId = await createNow(t.sdk, t.accountId, { content: 'a broken video', mediaItems: video('broken.mp4') });
    await e.runner.drain();
    expect((await getPost(t.sdk, postId)).platforms[0].status).toBe('processing');
    await runFor(30_000);
    const failed = await getPost(t.sdk, postId);
    expect(failed.status).toBe('failed');
    expect(failed.platforms[0]).toMatchObject({ status: 'failed', errorCategory: 'platform_rejected' });
    expect(failed.platforms[0].errorMessage).toContain('Unsupported video format');
    expect(await simPosts(t.xUserId)).toEqual([]);
  });

  it('a worker lost while checking: the check resumes from the stored media ids and never uploads again', async () => {
    const t = await connectedTenant({ id: '3100000000000000003', username: 'proc_crash' });
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_config', { processingMs: 20_000 });
    const uploadsBefore = initializeCalls();
    const postId = await createNow(t.sdk, t.accountId, {
      content: 'a video through a crash',
      mediaItems: video('crash.mp4'),
    });
    await e.runner.drain();
    const targetId = await targetIdOf(postId);
    const stored = await e.env.ctx.db.kysely
      .selectFrom('post_target')
      .select(['status', 'processing_handle'])
      .where('target_id', '=', targetId)
      .executeTakeFirstOrThrow();
    expect(stored.status).toBe('processing');
    const handle = JSON.parse(stored.processing_handle!);
    expect(handle.root).toHaveLength(1);

    // A worker claims the check once it is due and dies with it: its lease must run out first.
    e.env.clock.advance(25_000);
    const now = e.env.clock.now();
    const claimed = await claimDueJobs(e.env.ctx.db, {
      workerId: 'dead-worker',
      now,
      leaseUntil: new Date(now.getTime() + 60_000),
      limit: 10,
    });
    expect(claimed.map((j) => j.key)).toContain(processingCheckJobKey(targetId));
    await e.runner.drain();
    expect((await getPost(t.sdk, postId)).platforms[0].status).toBe('processing');

    await runFor(70_000);
    const done = await getPost(t.sdk, postId);
    expect(done.status).toBe('published');
    const posts = await simPosts(t.xUserId);
    expect(posts).toHaveLength(1);
    expect(posts[0].extra.mediaIds).toEqual(handle.root);
    expect(initializeCalls() - uploadsBefore).toBe(1);
  });

  it('a publish run that lost its lease while the media were processed: the post still goes out, once', async () => {
    const t = await connectedTenant({ id: '3100000000000000004', username: 'proc_stale' });
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_config', { processingMs: 20_000 });
    const postId = await createNow(t.sdk, t.accountId, {
      content: 'a video past a stale run',
      mediaItems: video('stale.mp4'),
    });
    await e.runner.drain();
    const targetId = await targetIdOf(postId);
    expect((await getPost(t.sdk, postId)).platforms[0].status).toBe('processing');

    // The publish job of a worker whose lease ran out mid-upload had been taken over by another worker
    // (three processes on a loaded host, issue 36): that run read the target while it was `publishing`,
    // and still holds the job when the media are ready.
    const db = e.env.ctx.db;
    const now = e.env.clock.now();
    await enqueueJob(
      db.kysely,
      { task: PUBLISH_TASK, key: publishJobKey(targetId), payload: { targetId }, runAt: now },
      now,
    );
    const held = await claimDueJobs(db, {
      workerId: 'stale-worker',
      now,
      leaseUntil: new Date(now.getTime() + 60_000),
      limit: 10,
    });
    const stale = held.find((j) => j.key === publishJobKey(targetId))!;
    expect(stale).toBeDefined();

    // Ready: the target goes back to pending while the stale run holds its publish job; then that run
    // ends and finishes the job it holds.
    e.env.clock.advance(25_000);
    await e.runner.drain();
    await finishJob(db.kysely, stale.job_id, 'stale-worker');

    await runFor(70_000);
    const done = await getPost(t.sdk, postId);
    expect([done.status, done.platforms[0].status]).toEqual(['published', 'published']);
    expect(await simPosts(t.xUserId)).toHaveLength(1);
    expect(await findJobByKey(db.kysely, publishJobKey(targetId))).toBeUndefined();
  });
});

async function targetIdOf(postId: string): Promise<string> {
  const row = await e.env.ctx.db.kysely
    .selectFrom('post_target')
    .select('target_id')
    .where('post_id', '=', postId)
    .executeTakeFirstOrThrow();
  return row.target_id;
}
