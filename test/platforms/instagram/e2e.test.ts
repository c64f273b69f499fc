import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instagramSimulator } from '../../../src/sandbox/instagram/index.js';
import { requireFfmpeg, solidImage, testVideo } from '../../fixtures/media.js';
import {
  createOAuthE2E,
  type OAuthE2E,
  settle as settleWorker,
  createNow as createPostNow,
  getPost,
  uploadToHerald as toHerald,
} from '../../helpers/oauth-e2e.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';
import { sdkError } from '../../helpers/sdk.js';

/*
 * Instagram end to end through the official SDK against the simulator (every Graph call held to Meta's
 * specs): Facebook Login, the professional account chosen on Herald's selection page among those linked
 * to the user's Pages, then each kind of post exactly once: an image with user tags, collaborators and a
 * first comment, a carousel, a reel and a carousel with a video that wait in processing, and a story; bad
 * fields refused at creation with nothing stored. Instagram downloads the media itself, from Herald's
 * public media URLs.
 */

let e: OAuthE2E;
let dir: string;
const data = (res: { data?: unknown }) => res.data as any;
const inspect = async () => (await sandboxCall(e.sandbox, 'GET', '/sandbox/instagram/_inspect')).posts as any[];

beforeAll(async () => {
  requireFfmpeg();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-ig-'));
  e = await createOAuthE2E((now) => [instagramSimulator({ now })]);
});
afterAll(async () => {
  await e?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function tenant(login: string) {
  const { apiKey } = await e.env.createUser();
  const sdk = await e.env.sdk(apiKey);
  const profile = data(await sdk.profiles.createProfile({ body: { name: `Instagram ${login}` } })).profile;
  return { apiKey, sdk, profileId: profile._id as string };
}

/** Facebook Login, then Herald's selection page: the account linked to the `pick`th Page is chosen. */
async function connected(login: string, pick = 0) {
  const t = await tenant(login);
  const start = data(
    await t.sdk.connect.getConnectUrl({ path: { platform: 'instagram' }, query: { profileId: t.profileId } }),
  );
  const shown = await fetch(`${start.authUrl}&login_hint=${login}`);
  const html = await shown.text();
  const tempToken = /name="tempToken" value="([^"]+)"/.exec(html)![1];
  const choices = [...html.matchAll(/name="destinationId" value="([^"]+)"/g)].map((m) => m[1]);
  const body = new URLSearchParams({ tempToken, destinationId: choices[pick] });
  const chosen = await fetch(new URL('choose', shown.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  expect(chosen.status).toBe(200);
  const [account] = data(await t.sdk.accounts.listAccounts({ query: { profileId: t.profileId } })).accounts;
  return { ...t, start, html, choices, account, accountId: account._id as string, igUserId: choices[pick] };
}

async function image(sdk: any, name: string, width: number, height: number) {
  const bytes = await solidImage(width, height, 'jpeg');
  return { url: await toHerald(sdk, name, bytes, 'image/jpeg'), size: bytes.length };
}

async function video(sdk: any, name: string, opts: { width: number; height: number }) {
  const file = path.join(dir, name);
  expect(testVideo(file, { seconds: 3, ...opts })).toBe(true);
  const bytes = fs.readFileSync(file);
  return { url: await toHerald(sdk, name, bytes, 'video/mp4'), size: bytes.length };
}

/** Facebook Login straight at the simulator: the Page token of `login`'s first Page, which acts for its professional account. */
async function pageToken(sandboxUrl: string, login: string): Promise<string> {
  const g = `${sandboxUrl}/sandbox/instagram/v24.0`;
  const redirect = 'https://herald.example/cb';
  const dialog = await fetch(
    `${g}/dialog/oauth?client_id=100000000000001&redirect_uri=${encodeURIComponent(redirect)}&login_hint=${login}`,
    { redirect: 'manual' },
  );
  const code = new URL(dialog.headers.get('location')!).searchParams.get('code')!;
  const user = (await (
    await fetch(
      `${g}/oauth/access_token?client_id=100000000000001&client_secret=s&redirect_uri=${encodeURIComponent(redirect)}&code=${code}`,
    )
  ).json()) as any;
  const pages = (await (
    await fetch(`${g}/me/accounts?fields=id,access_token`, { headers: { authorization: `OAuth ${user.access_token}` } })
  ).json()) as any;
  return pages.data[0].access_token;
}

const settle = (rounds = 4) => settleWorker(e, rounds);
const createNow = (sdk: any, accountId: string, body: Record<string, unknown>, psd: Record<string, unknown> = {}) =>
  createPostNow(sdk, 'instagram', accountId, body, psd);

describe('Instagram end to end through the official SDK', () => {
  it("connects with Facebook Login: the professional accounts of the user's Pages are offered, the one chosen becomes the account, its Page token sealed", async () => {
    const t = await connected('igConnect1', 1);
    const authUrl = new URL(t.start.authUrl);
    expect(authUrl.pathname).toBe('/sandbox/instagram/v24.0/dialog/oauth');
    expect(authUrl.searchParams.get('scope')!.split(',')).toEqual(
      expect.arrayContaining(['instagram_basic', 'instagram_content_publish', 'pages_show_list']),
    );
    expect(t.choices).toHaveLength(2);
    expect(t.html).toContain('igconnect1_ig1');
    expect(t.account).toMatchObject({
      platform: 'instagram',
      username: 'igconnect1_ig2',
      displayName: 'Sandbox igConnect1 Page 2',
      isActive: true,
      metadata: { igUserId: t.igUserId, igUsername: 'igconnect1_ig2', pageName: 'Sandbox igConnect1 Page 2' },
    });
    const row = await e.env.ctx.db.kysely
      .selectFrom('account')
      .select(['access_token', 'refresh_token'])
      .where('account_id', '=', t.accountId)
      .executeTakeFirstOrThrow();
    expect([row.access_token, row.refresh_token].every((v) => typeof v === 'string' && !v.includes('EAA'))).toBe(true);
  });

  it('publishes an image with user tags, collaborators and a first comment, and a carousel of three, each once with its id and URL', async () => {
    const t = await connected('igImage1');
    const img = await image(t.sdk, 'square.jpg', 800, 800);
    const post = await createNow(
      t.sdk,
      t.accountId,
      { content: 'Morning light #studio', mediaItems: [{ type: 'image', url: img.url }] },
      {
        collaborators: ['friend.one', 'friend.two'],
        userTags: [{ username: 'friend.one', x: 0.25, y: 0.75 }],
        firstComment: 'More in the bio',
      },
    );
    const items = await Promise.all([1, 2, 3].map((i) => image(t.sdk, `c${i}.jpg`, 800 + i * 10, 800)));
    const album = await createNow(
      t.sdk,
      t.accountId,
      { content: 'Three frames', mediaItems: items.map((m) => ({ type: 'image', url: m.url })) },
      { userTags: [{ username: 'friend.two', x: 0.5, y: 0.5, mediaIndex: 2 }] },
    );
    await e.runner.drain();
    const posts = await inspect();
    const single = posts.filter((p) => p.text === 'Morning light #studio');
    expect(single).toMatchObject([
      {
        destination: t.igUserId,
        media: [{ type: 'image', size: img.size, mimeType: 'image/jpeg' }],
        extra: {
          kind: 'IMAGE',
          collaborators: ['friend.one', 'friend.two'],
          userTags: [{ username: 'friend.one', x: 0.25, y: 0.75 }],
          comments: [{ text: 'More in the bio' }],
        },
      },
    ]);
    const after = await getPost(t.sdk, post._id);
    expect(after.platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: single[0].id,
      platformPostUrl: `https://www.instagram.com/p/${single[0].id.slice(-11)}/`,
    });
    const carousel = posts.filter((p) => p.text === 'Three frames');
    expect(carousel).toMatchObject([
      {
        destination: t.igUserId,
        media: items.map((m) => ({ type: 'image', size: m.size })),
        extra: { kind: 'CAROUSEL' },
      },
    ]);
    expect((await getPost(t.sdk, album._id)).platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: carousel[0].id,
      platformPostUrl: `https://www.instagram.com/p/${carousel[0].id.slice(-11)}/`,
    });
  });

  it("converts a PNG and a WebP upload to JPEG, served from Herald's publicUrl: the simulator refuses the PNG itself and takes the JPEG", async () => {
    const t = await connected('igPng1');
    const pngBytes = await solidImage(800, 800, 'png');
    const png = await toHerald(t.sdk, 'square.png', pngBytes, 'image/png');
    const webp = await toHerald(
      t.sdk,
      'square.webp',
      await sharp({ create: { width: 900, height: 900, channels: 3, background: '#336699' } })
        .webp()
        .toBuffer(),
      'image/webp',
    );
    const post = await createNow(t.sdk, t.accountId, {
      content: 'Converted for Instagram',
      mediaItems: [{ type: 'image', url: png }],
    });
    const other = await createNow(t.sdk, t.accountId, {
      content: 'WebP for Instagram',
      mediaItems: [{ type: 'image', url: webp }],
    });
    await e.runner.drain();
    const [published] = (await inspect()).filter((p) => p.text === 'Converted for Instagram');
    const jpegUrl = published.media[0].url as string;
    // The copy Instagram fetched is a JPEG under Herald's public media URL, beside the PNG it came from.
    expect(published.media[0]).toMatchObject({ type: 'image', mimeType: 'image/jpeg' });
    expect(new URL(jpegUrl).origin).toBe(new URL(png).origin);
    expect(jpegUrl).toMatch(/\/instagram-[^/]+\.jpg$/);
    const fetched = Buffer.from(await (await fetch(jpegUrl)).arrayBuffer());
    expect(fetched.subarray(0, 3).toString('hex')).toBe('ffd8ff');
    expect((await getPost(t.sdk, post._id)).platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: published.id,
    });
    expect((await inspect()).filter((p) => p.text === 'WebP for Instagram')).toMatchObject([
      { media: [{ mimeType: 'image/jpeg' }] },
    ]);
    expect((await getPost(t.sdk, other._id)).platforms[0].status).toBe('published');
    // Straight to the simulator, as the Page's professional account: Herald's PNG is refused, its JPEG taken.
    const igToken = await pageToken(e.sandbox.url, 'igPng1');
    const direct = async (url: string) => {
      const res = await fetch(`${e.sandbox.url}/sandbox/instagram/v24.0/${t.igUserId}/media`, {
        method: 'POST',
        headers: { authorization: `OAuth ${igToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ image_url: url }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    expect(await direct(png)).toMatchObject({
      status: 400,
      body: {
        error: { code: 9004, error_subcode: 2207052, message: 'Only photo or video can be accepted as media type.' },
      },
    });
    expect((await direct(jpegUrl)).status).toBe(200);
  });

  it('refuses a GIF at creation (Instagram takes no GIFs, and converting would lose its motion), storing nothing', async () => {
    const t = await connected('igGif1');
    const gif = await toHerald(
      t.sdk,
      'anim.gif',
      await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000000' } })
        .gif()
        .toBuffer(),
      'image/gif',
    );
    const refused = await sdkError(
      t.sdk.posts.createPost({
        body: {
          content: 'a gif',
          publishNow: true,
          platforms: [{ platform: 'instagram', accountId: t.accountId }],
          mediaItems: [{ type: 'image', url: gif }],
        } as any,
      }),
    );
    expect(refused.statusCode).toBe(400);
    expect(JSON.stringify(refused.body ?? refused)).toContain('GIF');
    expect((await inspect()).filter((p) => p.text === 'a gif')).toEqual([]);
  });

  it('a reel waits in processing without holding a worker, then publishes once with its reel fields; a story shows no caption', async () => {
    await sandboxCall(e.sandbox, 'POST', '/sandbox/instagram/_config', { processingMs: 60_000 });
    const t = await connected('igReel1');
    const clip = await video(t.sdk, 'reel.mp4', { width: 360, height: 640 });
    const reel = await createNow(
      t.sdk,
      t.accountId,
      { content: 'Behind the scenes', mediaItems: [{ type: 'video', url: clip.url }] },
      {
        shareToFeed: false,
        thumbOffset: 1500,
        audioName: 'Studio hum',
        trialParams: { graduationStrategy: 'SS_PERFORMANCE' },
      },
    );
    // A carousel with a video item waits for the item, then makes the carousel and publishes it.
    const still = await image(t.sdk, 'mixed.jpg', 800, 800);
    const mixed = await createNow(t.sdk, t.accountId, {
      content: 'Still and moving',
      mediaItems: [
        { type: 'image', url: still.url },
        { type: 'video', url: clip.url },
      ],
    });
    await e.runner.drain();
    expect((await getPost(t.sdk, reel._id)).platforms[0].status).toBe('processing');
    expect((await getPost(t.sdk, mixed._id)).platforms[0].status).toBe('processing');
    expect((await inspect()).filter((p) => p.text === 'Behind the scenes' || p.text === 'Still and moving')).toEqual(
      [],
    );
    await settle();
    const mixedPosts = (await inspect()).filter((p) => p.text === 'Still and moving');
    expect(mixedPosts).toMatchObject([
      {
        media: [
          { type: 'image', size: still.size },
          { type: 'video', size: clip.size },
        ],
        extra: { kind: 'CAROUSEL' },
      },
    ]);
    expect((await getPost(t.sdk, mixed._id)).platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: mixedPosts[0].id,
    });
    const reels = (await inspect()).filter((p) => p.text === 'Behind the scenes');
    expect(reels).toMatchObject([
      {
        destination: t.igUserId,
        media: [{ type: 'video', size: clip.size }],
        extra: {
          kind: 'REELS',
          share_to_feed: false,
          thumb_offset: '1500',
          audio_name: 'Studio hum',
          trial_params: { graduation_strategy: 'SS_PERFORMANCE' },
        },
      },
    ]);
    expect((await getPost(t.sdk, reel._id)).platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: reels[0].id,
      platformPostUrl: `https://www.instagram.com/p/${reels[0].id.slice(-11)}/`,
    });

    // A cover image (the media item's instagramThumbnail) goes as cover_url, and thumbOffset is not sent.
    const cover = await image(t.sdk, 'cover.jpg', 540, 960);
    await createNow(
      t.sdk,
      t.accountId,
      { content: 'With a cover', mediaItems: [{ type: 'video', url: clip.url, instagramThumbnail: cover.url }] },
      { thumbOffset: 500 },
    );
    const portrait = await image(t.sdk, 'story.jpg', 600, 1000);
    const story = await createNow(
      t.sdk,
      t.accountId,
      { content: 'not shown on a story', mediaItems: [{ type: 'image', url: portrait.url }] },
      { contentType: 'story' },
    );
    await settle();
    const posts = await inspect();
    const covered = posts.filter((p) => p.text === 'With a cover');
    expect(covered).toHaveLength(1);
    expect(covered[0].extra.cover_url).toBe(cover.url);
    expect(covered[0].extra.thumb_offset).toBeUndefined();
    const stories = posts.filter((p) => p.extra.kind === 'STORIES' && p.destination === t.igUserId);
    expect(stories).toMatchObject([{ text: '', media: [{ type: 'image', size: portrait.size }] }]);
    expect((await getPost(t.sdk, story._id)).platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: stories[0].id,
      platformPostUrl: expect.stringMatching(/^https:\/\/www\.instagram\.com\//),
    });
    await sandboxCall(e.sandbox, 'POST', '/sandbox/instagram/_config', { processingMs: 0 });
  });

  it('refuses bad fields at creation (4 collaborators, a user tag off the image, thumbOffset on an image, a carousel of 11) and stores nothing', async () => {
    const t = await connected('igBad1');
    const img = await image(t.sdk, 'bad.jpg', 800, 800);
    const before = (await inspect()).length;
    const cases: [Record<string, unknown>, string][] = [
      [{ collaborators: ['a', 'b', 'c', 'd'] }, 'platformSpecificData.collaborators'],
      [{ userTags: [{ username: 'a', x: 1.2, y: 0.5 }] }, 'platformSpecificData.userTags'],
      [{ thumbOffset: 100 }, 'platformSpecificData.thumbOffset'],
    ];
    for (const [psd, field] of cases) {
      const bad = await sdkError(
        t.sdk.posts.createPost({
          body: {
            content: 'refused',
            publishNow: true,
            mediaItems: [{ type: 'image', url: img.url }],
            platforms: [{ platform: 'instagram', accountId: t.accountId, platformSpecificData: psd }],
          },
        } as any),
      );
      expect(bad.statusCode, JSON.stringify(psd)).toBe(400);
      expect(JSON.stringify(bad.body ?? bad)).toContain(field);
    }
    // A carousel of 11 items: Instagram takes 2 to 10.
    const eleven = Array.from({ length: 11 }, () => ({ type: 'image', url: img.url }));
    const tooMany = await sdkError(
      t.sdk.posts.createPost({
        body: {
          content: 'refused',
          publishNow: true,
          mediaItems: eleven,
          platforms: [{ platform: 'instagram', accountId: t.accountId }],
        },
      } as any),
    );
    expect(tooMany.statusCode).toBe(400);
    expect(JSON.stringify(tooMany.body ?? tooMany)).toContain('mediaItems');
    const listed = data(await t.sdk.posts.listPosts({ query: { profileId: t.profileId } } as any)).posts as any[];
    expect(listed.filter((p) => p.content === 'refused')).toEqual([]);
    await e.runner.drain();
    expect((await inspect()).length).toBe(before);
  });
  it("holds a post past the account's 100 posts in 24 hours until the window moves: never sent only to fail", async () => {
    const t = await connected('igQuota1');
    const img = await image(t.sdk, 'quota.jpg', 800, 800);
    const start = e.env.clock.now().getTime();
    // content_publishing_limit: 100 API-published posts in a moving 24 hours. The 101st is due with them.
    const posts = [];
    for (let i = 0; i < 101; i++)
      posts.push(
        await createNow(t.sdk, t.accountId, { content: `quota ${i}`, mediaItems: [{ type: 'image', url: img.url }] }),
      );
    await e.runner.drain();
    const onPlatform = () => inspect().then((all) => all.filter((p) => p.text.startsWith('quota ')));
    expect(await onPlatform()).toHaveLength(100);
    const statuses = await Promise.all(posts.map(async (p) => (await getPost(t.sdk, p._id)).platforms[0]));
    const waiting = statuses.filter((s) => s.status !== 'published');
    // The one left over was never tried: no container, no refusal, no failure; it waits for the window.
    expect(waiting).toHaveLength(1);
    expect(waiting[0]).toMatchObject({ status: 'pending' });
    const quota = (await (
      await fetch(
        `${e.sandbox.url}/sandbox/instagram/v24.0/${t.igUserId}/content_publishing_limit?fields=quota_usage`,
        {
          headers: { authorization: `OAuth ${await pageToken(e.sandbox.url, 'igQuota1')}` },
        },
      )
    ).json()) as any;
    expect(quota.data[0].quota_usage).toBe(100);

    // A second before the first posts are 24 hours old nothing more goes out; at 24 hours it does, once.
    e.env.clock.advance(start + 86_400_000 - 1_000 - e.env.clock.now().getTime());
    await e.runner.drain();
    expect(await onPlatform()).toHaveLength(100);
    e.env.clock.advance(1_000);
    await e.runner.drain();
    const after = await onPlatform();
    expect(after).toHaveLength(101);
    expect(new Set(after.map((p) => p.text)).size).toBe(101);
    const last = posts[statuses.indexOf(waiting[0])];
    expect((await getPost(t.sdk, last._id)).platforms[0]).toMatchObject({ status: 'published' });
  }, 120_000);
});
