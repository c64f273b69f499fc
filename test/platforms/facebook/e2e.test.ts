import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { facebookSimulator } from '../../../src/sandbox/facebook/index.js';
import { requireFfmpeg, solidImage, testVideo } from '../../fixtures/media.js';
import {
  createOAuthE2E,
  type OAuthE2E,
  settle as settleWorker,
  createNow as createPostNow,
  getPost,
  uploadToHerald as toHerald,
} from '../../helpers/oauth-e2e.js';
import { followAuthUrl } from '../../helpers/oauth-test-platform.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';
import { sdkError } from '../../helpers/sdk.js';

/*
 * Facebook end to end through the official SDK against the simulator (every Graph call held to Meta's
 * specs): Facebook Login with the headless Page selection, the account's Pages and the switch, then each
 * kind of Page post exactly once: text with a link and a first comment, several photos in one post, a
 * video that waits in processing, a reel, photo and video stories, the same account on two Pages, a
 * refused mix of images and video, and an unpublish.
 */

let e: OAuthE2E;
let dir: string;
const data = (res: { data?: unknown }) => res.data as any;
const inspect = async () => (await sandboxCall(e.sandbox, 'GET', '/sandbox/facebook/_inspect')).posts as any[];
const APP = 'https://app.example/facebook';

beforeAll(async () => {
  requireFfmpeg();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-fb-'));
  e = await createOAuthE2E((now) => [facebookSimulator({ now })]);
});
afterAll(async () => {
  await e?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function tenant(login: string) {
  const { apiKey } = await e.env.createUser();
  const sdk = await e.env.sdk(apiKey);
  const profile = data(await sdk.profiles.createProfile({ body: { name: `Facebook ${login}` } })).profile;
  return { apiKey, sdk, profileId: profile._id as string };
}

async function headless(t: Awaited<ReturnType<typeof tenant>>, login: string) {
  const start = data(
    await t.sdk.connect.getConnectUrl({
      path: { platform: 'facebook' },
      query: { profileId: t.profileId, headless: true, redirect_url: APP } as any,
    }),
  );
  const end = await followAuthUrl(`${start.authUrl}&login_hint=${login}`, 'https://app.example/');
  return { authUrl: new URL(start.authUrl), params: new URL(end.url).searchParams };
}

/** Connected through the selection, on the first Page listed. */
async function connected(login: string) {
  const t = await tenant(login);
  const { params } = await headless(t, login);
  const headers = { 'X-Connect-Token': params.get('connect_token')! };
  const query = { profileId: t.profileId, tempToken: params.get('tempToken')! };
  const pages = data(await t.sdk.connect.facebook.listFacebookPages({ headers, query })).pages as {
    id: string;
    name: string;
  }[];
  const selected = data(
    await t.sdk.connect.facebook.selectFacebookPage({ headers, body: { ...query, pageId: pages[0].id } } as any),
  );
  return { ...t, pages, accountId: selected.account.accountId as string };
}

async function video(sdk: any, name: string, opts: { width: number; height: number }) {
  const file = path.join(dir, name);
  expect(testVideo(file, { seconds: 3, ...opts })).toBe(true);
  const bytes = fs.readFileSync(file);
  return { url: await toHerald(sdk, name, bytes, 'video/mp4'), size: bytes.length };
}

const settle = (rounds = 4) => settleWorker(e, rounds);
const createNow = (sdk: any, accountId: string, body: Record<string, unknown>, psd: Record<string, unknown> = {}) =>
  createPostNow(sdk, 'facebook', accountId, body, psd);

describe('Facebook end to end through the official SDK', () => {
  it('connects headless: the Page selection needs the X-Connect-Token, and the chosen Page becomes the account, its token sealed', async () => {
    const t = await tenant('fbConnect1');
    const { authUrl, params } = await headless(t, 'fbConnect1');
    expect(authUrl.pathname).toBe('/sandbox/facebook/v24.0/dialog/oauth');
    expect(authUrl.searchParams.get('scope')).toContain('pages_manage_posts');
    expect(Object.fromEntries(params)).toMatchObject({
      platform: 'facebook',
      step: 'select_page',
      profileId: t.profileId,
    });
    const query = { profileId: t.profileId, tempToken: params.get('tempToken')! };
    const headers = { 'X-Connect-Token': params.get('connect_token')! };

    const wrong = await sdkError(
      t.sdk.connect.facebook.listFacebookPages({ headers: { 'X-Connect-Token': 'ct_nope' }, query }),
    );
    expect(wrong.statusCode).toBe(401);
    const pages = data(await t.sdk.connect.facebook.listFacebookPages({ headers, query })).pages;
    expect(pages).toHaveLength(2);
    expect(pages[0]).toEqual({
      id: expect.stringMatching(/^\d{15}$/),
      name: 'Sandbox fbConnect1 Page 1',
      username: 'fbconnect1page1',
      category: 'Brand',
      tasks: [],
    });
    expect(data(await t.sdk.accounts.listAccounts({ query: { profileId: t.profileId } })).accounts).toEqual([]);

    const missing = await sdkError(
      t.sdk.connect.facebook.selectFacebookPage({ headers, body: { ...query, pageId: '123' } } as any),
    );
    expect([missing.statusCode, missing.code]).toEqual([404, 'page_not_found']);
    const selected = data(
      await t.sdk.connect.facebook.selectFacebookPage({
        headers,
        body: { ...query, pageId: pages[1].id, redirect_url: 'https://app.example/done' },
      } as any),
    );
    expect(selected).toMatchObject({
      message: 'Facebook page connected successfully',
      account: {
        platform: 'facebook',
        username: 'fbconnect1page2',
        displayName: 'Sandbox fbConnect1 Page 2',
        isActive: true,
        selectedPageName: 'Sandbox fbConnect1 Page 2',
      },
    });
    const [account] = data(await t.sdk.accounts.listAccounts({ query: { profileId: t.profileId } })).accounts;
    expect(account).toMatchObject({
      _id: selected.account.accountId,
      metadata: { pageId: pages[1].id, pageName: 'Sandbox fbConnect1 Page 2' },
    });
    // The simulator's tokens start with EAA: none is stored as it is.
    const row = await e.env.ctx.db.kysely
      .selectFrom('account')
      .select(['access_token', 'refresh_token'])
      .where('account_id', '=', account._id)
      .executeTakeFirstOrThrow();
    expect([row.access_token, row.refresh_token].every((v) => typeof v === 'string' && !v.includes('EAA'))).toBe(true);
  });

  it("lists the account's Pages with the one selected, and switches to another", async () => {
    const t = await connected('fbPages1');
    const listed = data(await t.sdk.connect.getFacebookPages({ path: { accountId: t.accountId } }));
    expect(listed).toEqual({
      pages: t.pages.map((p, i) => ({
        id: p.id,
        name: p.name,
        username: `fbpages1page${i + 1}`,
        category: i ? 'Local business' : 'Brand',
        fan_count: 1000 * (i + 1),
      })),
      selectedPageId: t.pages[0].id,
      cached: false,
    });
    const bad = await sdkError(
      t.sdk.connect.updateFacebookPage({ path: { accountId: t.accountId }, body: { selectedPageId: '999' } }),
    );
    expect([bad.statusCode, bad.code]).toEqual([400, 'page_not_available']);
    const res = data(
      await t.sdk.connect.updateFacebookPage({
        path: { accountId: t.accountId },
        body: { selectedPageId: t.pages[1].id },
      }),
    );
    expect(res).toEqual({
      message: 'Facebook page updated successfully',
      selectedPage: { id: t.pages[1].id, name: t.pages[1].name },
    });
    const post = await createNow(t.sdk, t.accountId, { content: 'now on the second Page' });
    await e.runner.drain();
    expect((await inspect()).filter((p) => p.text === 'now on the second Page').map((p) => p.destination)).toEqual([
      t.pages[1].id,
    ]);
    expect((await getPost(t.sdk, post._id)).platforms[0].status).toBe('published');
  });

  it('publishes text with a link and a first comment once; the same account posts to two Pages with pageId; unpublish deletes', async () => {
    const t = await connected('fbText1');
    const post = await createNow(
      t.sdk,
      t.accountId,
      { content: 'Read the launch notes https://example.com/launch' },
      { firstComment: 'Questions welcome below' },
    );
    await e.runner.drain();
    const [published] = (await inspect()).filter((p) => p.text === 'Read the launch notes https://example.com/launch');
    expect(published).toMatchObject({
      destination: t.pages[0].id,
      extra: {
        kind: 'feed',
        link: 'https://example.com/launch',
        comments: [{ text: 'Questions welcome below', from: t.pages[0].id }],
      },
    });
    const after = await getPost(t.sdk, post._id);
    const [page, postPart] = published.id.split('_');
    expect(after.platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: published.id,
      platformPostUrl: `https://www.facebook.com/${page}/posts/${postPart}`,
    });

    const both = await t.sdk.posts.createPost({
      body: {
        content: 'On both Pages',
        publishNow: true,
        platforms: [
          { platform: 'facebook', accountId: t.accountId, platformSpecificData: { pageId: t.pages[0].id } },
          { platform: 'facebook', accountId: t.accountId, platformSpecificData: { pageId: t.pages[1].id } },
        ],
      },
    });
    expect(both.response.status).toBe(201);
    await e.runner.drain();
    expect(
      (await inspect())
        .filter((p) => p.text === 'On both Pages')
        .map((p) => p.destination)
        .sort(),
    ).toEqual(t.pages.map((p) => p.id).sort());

    const res = await t.sdk.posts.unpublishPost({ path: { postId: post._id }, body: { platform: 'facebook' } });
    expect(res.response.status).toBe(200);
    expect((await inspect()).find((p) => p.id === published.id)).toMatchObject({ deleted: true });
  });

  it('publishes three photos as one post, a photo story without its text, and refuses images mixed with a video before storing anything', async () => {
    const t = await connected('fbPhotos1');
    const urls = await Promise.all(
      [1, 2, 3].map(async (i) => toHerald(t.sdk, `p${i}.png`, await solidImage(400 + i, 400), 'image/png')),
    );
    await createNow(t.sdk, t.accountId, {
      content: 'Three from the offsite',
      mediaItems: urls.map((url) => ({ type: 'image', url })),
    });
    const story = await createNow(
      t.sdk,
      t.accountId,
      {
        content: 'not shown on a story',
        mediaItems: [{ type: 'image', url: await toHerald(t.sdk, 's.png', await solidImage(600, 1000), 'image/png') }],
      },
      { contentType: 'story' },
    );
    await e.runner.drain();
    const posts = await inspect();
    const album = posts.filter((p) => p.text === 'Three from the offsite');
    expect(album).toHaveLength(1);
    expect(album[0].media).toHaveLength(3);
    expect(album[0].media.every((m: any) => m.type === 'image' && m.mimeType === 'image/png')).toBe(true);
    const [storyPost] = posts.filter((p) => p.extra.kind === 'story' && p.destination === t.pages[0].id);
    expect(storyPost).toMatchObject({ text: '', media: [{ type: 'image' }] });
    expect((await getPost(t.sdk, story._id)).platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: storyPost.id,
    });

    const v = await video(t.sdk, 'mix.mp4', { width: 320, height: 240 });
    const before = (await inspect()).length;
    const mixed = await sdkError(
      t.sdk.posts.createPost({
        body: {
          content: 'mixed',
          publishNow: true,
          mediaItems: [
            { type: 'image', url: urls[0] },
            { type: 'video', url: v.url },
          ],
          platforms: [{ platform: 'facebook', accountId: t.accountId }],
        },
      } as any),
    );
    expect(mixed.statusCode).toBe(400);
    expect(JSON.stringify(mixed.body ?? mixed)).toContain('media_mix');
    const listed = data(await t.sdk.posts.listPosts({ query: { profileId: t.profileId } } as any)).posts as any[];
    expect(listed.filter((p) => p.content === 'mixed')).toEqual([]);
    expect((await inspect()).length).toBe(before);
  });

  it('a video waits in processing without holding a worker, then publishes once with its first comment; a reel and a video story too', async () => {
    await sandboxCall(e.sandbox, 'POST', '/sandbox/facebook/_config', { processingMs: 60_000 });
    const t = await connected('fbVideo1');
    const feed = await video(t.sdk, 'feed.mp4', { width: 640, height: 360 });
    const post = await createNow(
      t.sdk,
      t.accountId,
      { content: 'Three seconds of launch', mediaItems: [{ type: 'video', url: feed.url }] },
      { firstComment: 'Full talk tomorrow' },
    );
    await e.runner.drain();
    expect((await getPost(t.sdk, post._id)).platforms[0].status).toBe('processing');
    await settle();
    const [published] = (await inspect()).filter((p) => p.text === 'Three seconds of launch');
    expect(published).toMatchObject({
      media: [{ type: 'video', size: feed.size }],
      extra: { kind: 'video', comments: [{ text: 'Full talk tomorrow' }] },
    });
    expect((await getPost(t.sdk, post._id)).platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: published.id,
      platformPostUrl: `https://www.facebook.com/${t.pages[0].id}/videos/${published.id}`,
    });

    const vertical = await video(t.sdk, 'reel.mp4', { width: 360, height: 640 });
    const reel = await createNow(
      t.sdk,
      t.accountId,
      { content: 'A reel from the floor', mediaItems: [{ type: 'video', url: vertical.url }] },
      { contentType: 'reel', title: 'Floor' },
    );
    const story = await createNow(
      t.sdk,
      t.accountId,
      { content: 'hidden', mediaItems: [{ type: 'video', url: vertical.url }] },
      { contentType: 'story' },
    );
    await settle();
    const posts = await inspect();
    const reels = posts.filter((p) => p.extra.kind === 'reel' && p.destination === t.pages[0].id);
    expect(reels).toMatchObject([
      { text: 'A reel from the floor', media: [{ type: 'video', size: vertical.size }], extra: { title: 'Floor' } },
    ]);
    expect((await getPost(t.sdk, reel._id)).platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: reels[0].id,
      platformPostUrl: `https://www.facebook.com/reel/${reels[0].id}`,
    });
    const stories = posts.filter((p) => p.extra.kind === 'story' && p.destination === t.pages[0].id);
    expect(stories).toMatchObject([{ text: '', media: [{ type: 'video', size: vertical.size }] }]);
    expect((await getPost(t.sdk, story._id)).platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: stories[0].id,
    });
  });
});
