import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadsSimulator } from '../../../src/sandbox/threads/index.js';
import { requireFfmpeg, testVideo } from '../../fixtures/media.js';
import {
  createOAuthE2E,
  followAuthUrl,
  type OAuthE2E,
  settle as settleWorker,
  createNow as createPostNow,
  getPost,
} from '../../helpers/oauth-e2e.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';

/*
 * Threads end to end through the official SDK against the simulator: connect (the long-lived token),
 * text, an image, a video and a carousel that wait in `processing` while Threads processes their containers, a
 * sequence of replies, text over 500 characters refused before anything is stored, and the token
 * renewed by the refresh scan before its 60 days run out.
 */

let e: OAuthE2E;
let dir: string;
const data = (res: { data?: unknown }) => res.data as any;
const inspect = async () => (await sandboxCall(e.sandbox, 'GET', '/sandbox/threads/_inspect')).posts as any[];

beforeAll(async () => {
  requireFfmpeg();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-threads-'));
  e = await createOAuthE2E((now) => [threadsSimulator({ now })]);
});
afterAll(async () => {
  await e?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function connectedTenant(login: string) {
  const { apiKey } = await e.env.createUser();
  const sdk = await e.env.sdk(apiKey);
  const profile = data(await sdk.profiles.createProfile({ body: { name: `Threads ${login}` } })).profile;
  await sandboxCall(e.sandbox, 'POST', '/sandbox/threads/_oauth/users', {
    id: login,
    username: login.toLowerCase(),
    name: `Threads ${login}`,
  });
  const start = data(
    await sdk.connect.getConnectUrl({
      path: { platform: 'threads' },
      query: { profileId: profile._id, redirect_url: `${e.baseUrl}/health` },
    }),
  );
  const landed = await followAuthUrl(`${start.authUrl}&login_hint=${login}`);
  const accounts = data(await sdk.accounts.listAccounts({ query: { profileId: profile._id } })).accounts;
  return { sdk, profileId: profile._id, start, landed, account: accounts[0] };
}

/** The post was published once, and Herald shows the id and permalink Threads gave. */
async function expectPublishedOnce(sdk: any, postId: string, text: string) {
  const posts = (await inspect()).filter((p) => p.text === text);
  expect(posts).toHaveLength(1);
  const post = await getPost(sdk, postId);
  expect(post.status).toBe('published');
  expect(post.platforms[0]).toMatchObject({
    status: 'published',
    platformPostId: posts[0].id,
    platformPostUrl: posts[0].extra.permalink,
  });
  expect(posts[0].extra.permalink).toMatch(/^https:\/\/www\.threads\.net\/@[\w.]+\/post\/[\w-]+$/);
  return posts[0];
}

const settle = (rounds = 4) => settleWorker(e, rounds);
const createNow = (sdk: any, accountId: string, body: Record<string, unknown>, psd: Record<string, unknown> = {}) =>
  createPostNow(sdk, 'threads', accountId, body, psd);

describe('Threads end to end through the official SDK', () => {
  it('connects through threads.net consent: the long-lived token, the Threads user as the account', async () => {
    const t = await connectedTenant('thConnect1');
    const auth = new URL(t.start.authUrl);
    expect(auth.pathname).toBe('/sandbox/threads/oauth/authorize');
    expect(auth.searchParams.get('scope')).toBe(
      'threads_basic,threads_content_publish,threads_delete,threads_read_replies,threads_manage_replies,threads_manage_mentions',
    );
    expect(t.landed.searchParams.get('connected')).toBe('threads');
    expect(t.account).toMatchObject({
      platform: 'threads',
      isActive: true,
      username: 'thconnect1',
      displayName: 'Threads thConnect1',
    });
    // The code's short-lived token was traded for a long-lived one at once.
    const calls = e.sandbox.state('threads').calls.map((c) => c.path.split('?')[0]);
    expect(calls).toContain('/sandbox/threads/access_token');
  });

  it('publishes a text post exactly once', async () => {
    const t = await connectedTenant('thText1');
    const post = await createNow(t.sdk, t.account._id, { content: 'Hello from Herald on Threads 🧵' });
    await settle(1);
    const out = await expectPublishedOnce(t.sdk, post._id, 'Hello from Herald on Threads 🧵');
    expect(out).toMatchObject({ media: [], replyTo: null, extra: { mediaType: 'TEXT' } });
  });

  it('an image waits in processing without holding a worker, then publishes once', async () => {
    const t = await connectedTenant('thImage1');
    const post = await createNow(t.sdk, t.account._id, {
      content: 'An image on Threads',
      mediaItems: [{ type: 'image', url: e.mediaUrl('th-image.png', 5000) }],
    });
    await e.runner.drain();
    expect((await getPost(t.sdk, post._id)).platforms[0].status).toBe('processing');
    expect((await inspect()).filter((p) => p.text === 'An image on Threads')).toEqual([]);
    await settle();
    const out = await expectPublishedOnce(t.sdk, post._id, 'An image on Threads');
    expect(out).toMatchObject({
      media: [{ type: 'image', mimeType: 'image/png', size: 5000 }],
      extra: { mediaType: 'IMAGE' },
    });
  });

  it("publishes a video from Herald's storage once, after Threads processed it", async () => {
    const t = await connectedTenant('thVideo1');
    const file = path.join(dir, 'clip.mp4');
    expect(testVideo(file, { seconds: 2, width: 360, height: 640 })).toBe(true);
    const bytes = fs.readFileSync(file);
    const presigned = data(
      await t.sdk.media.getMediaPresignedUrl({
        body: { filename: 'clip.mp4', contentType: 'video/mp4', size: bytes.length },
      }),
    );
    expect(
      (await fetch(presigned.uploadUrl, { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: bytes }))
        .status,
    ).toBe(200);
    const post = await createNow(t.sdk, t.account._id, {
      content: 'A video on Threads',
      mediaItems: [{ type: 'video', url: presigned.publicUrl }],
    });
    await e.runner.drain();
    expect((await getPost(t.sdk, post._id)).platforms[0].status).toBe('processing');
    await settle();
    const out = await expectPublishedOnce(t.sdk, post._id, 'A video on Threads');
    expect(out).toMatchObject({
      media: [{ type: 'video', mimeType: 'video/mp4', size: bytes.length }],
      extra: { mediaType: 'VIDEO' },
    });
  });

  it('publishes a carousel of an image and a video once, after Threads processed its items', async () => {
    const t = await connectedTenant('thCarousel1');
    const mediaItems = [
      { type: 'image', url: e.mediaUrl('th-c1.png', 4000) },
      { type: 'video', url: e.mediaUrl('th-c2.mp4', 300_000, 'video/mp4') },
    ];
    const post = await createNow(t.sdk, t.account._id, { content: 'A carousel on Threads', mediaItems });
    await e.runner.drain();
    expect((await getPost(t.sdk, post._id)).platforms[0].status).toBe('processing');
    await settle();
    const out = await expectPublishedOnce(t.sdk, post._id, 'A carousel on Threads');
    expect(out).toMatchObject({
      media: [
        { type: 'image', size: 4000 },
        { type: 'video', size: 300_000 },
      ],
      extra: { mediaType: 'CAROUSEL', children: [expect.any(String), expect.any(String)] },
    });
  });

  it('publishes a sequence as a chain of replies, each post once', async () => {
    const t = await connectedTenant('thSeq1');
    // threadItems[0] is the root, as in the hosted API.
    const items = [{ content: 'Sequence 1/3' }, { content: 'Sequence 2/3' }, { content: 'Sequence 3/3' }];
    const post = await createNow(t.sdk, t.account._id, { content: 'Sequence 1/3' }, { threadItems: items });
    await settle(1);
    const root = await expectPublishedOnce(t.sdk, post._id, 'Sequence 1/3');
    const posts = await inspect();
    const second = posts.filter((p) => p.text === 'Sequence 2/3');
    const third = posts.filter((p) => p.text === 'Sequence 3/3');
    expect(second).toHaveLength(1);
    expect(third).toHaveLength(1);
    expect(second[0]).toMatchObject({ replyTo: root.id, extra: { rootId: root.id } });
    expect(third[0]).toMatchObject({ replyTo: second[0].id, extra: { rootId: root.id } });
  });

  it('a reply with an image Threads is still processing pauses the sequence, then that same container is published', async () => {
    const t = await connectedTenant('thSeqImage1');
    const creates = () =>
      e.sandbox
        .state('threads')
        .calls.filter((c) => c.method === 'POST' && c.path.startsWith('/sandbox/threads/v1.0/me/threads?')).length;
    const before = creates();
    const items = [
      { content: 'Pictured 1/2' },
      { content: 'Pictured 2/2', mediaItems: [{ type: 'image', url: e.mediaUrl('th-reply.png', 3000) }] },
    ];
    const post = await createNow(t.sdk, t.account._id, { content: 'Pictured 1/2' }, { threadItems: items });
    await e.runner.drain();
    // The root is out; the reply's container is still processing, so the target waits.
    expect((await inspect()).filter((p) => p.text === 'Pictured 1/2')).toHaveLength(1);
    expect((await inspect()).filter((p) => p.text === 'Pictured 2/2')).toEqual([]);
    expect((await getPost(t.sdk, post._id)).status).not.toBe('published');
    e.env.clock.advance(60_000);
    await settle(2);
    const root = await expectPublishedOnce(t.sdk, post._id, 'Pictured 1/2');
    const reply = (await inspect()).filter((p) => p.text === 'Pictured 2/2');
    expect(reply).toHaveLength(1);
    expect(reply[0]).toMatchObject({ replyTo: root.id, media: [{ type: 'image', size: 3000 }] });
    // Two containers in all: the root's and the reply's, which was not made again.
    expect(creates() - before).toBe(2);
  });

  it('refuses text over 500 characters as Threads counts them with a 400, before anything is stored', async () => {
    const t = await connectedTenant('thLong1');
    const before = (await inspect()).length;
    // 497 letters and one emoji of 4 UTF-8 bytes: 501.
    const refused = await t.sdk.posts
      .createPost({
        body: {
          content: `${'a'.repeat(497)}😀`,
          publishNow: true,
          platforms: [{ platform: 'threads', accountId: t.account._id }],
        },
      })
      .then(
        () => null,
        (error: unknown) => error as { message: string },
      );
    expect(refused?.message).toMatch(/text is 501 characters; the limit is 500/);
    const listed = data(await t.sdk.posts.listPosts({ query: { profileId: t.profileId } }));
    expect(listed.posts).toEqual([]);
    await settle(1);
    expect((await inspect()).length).toBe(before);
  });

  it('renews the long-lived token before its 60 days run out; posts still go out after the first token expired', async () => {
    const t = await connectedTenant('thRefresh1');
    const refreshes = () =>
      e.sandbox.state('threads').calls.filter((c) => c.path.startsWith('/sandbox/threads/refresh_access_token')).length;
    const before = refreshes();
    // Five minutes before the 60 days end: inside TOKEN_REFRESH_AHEAD_MINUTES, the scan renews it.
    e.env.clock.advance(60 * 86_400_000 - 5 * 60_000);
    await e.runner.drain();
    expect(refreshes()).toBeGreaterThan(before);
    // A day later the first token is dead; the renewed one publishes.
    e.env.clock.advance(86_400_000);
    const post = await createNow(t.sdk, t.account._id, { content: 'After the token was renewed' });
    await settle(1);
    await expectPublishedOnce(t.sdk, post._id, 'After the token was renewed');
    const accounts = data(await t.sdk.accounts.listAccounts({ query: { profileId: t.profileId } })).accounts;
    expect(accounts[0]).toMatchObject({ isActive: true });
  });
});
