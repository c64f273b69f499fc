import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tiktokSimulator } from '../../../src/sandbox/tiktok/index.js';
import { solidImage, testVideo } from '../../fixtures/media.js';
import { createPlatformE2E, followAuthUrl, getPost, uploadToHerald } from '../../helpers/oauth-e2e.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';

/*
 * TikTok end to end through the official SDK against the simulator: connect through Login Kit, a video
 * from Herald's storage by FILE_UPLOAD (and one of 11 MB in two 5 MB-rule chunks) and a photo carousel TikTok pulls from Herald's public URLs, each
 * published once after processing; a privacy level the creator does not offer refused at creation; a
 * creator whose options change before the post is due fails the target with TikTok's reason; no unpublish.
 */

const h = createPlatformE2E('tiktok', (now) => [tiktokSimulator({ now })], {
  media: true,
  env: { TIKTOK_UPLOAD_CHUNK_MB: '5' },
  settleStepMs: 15_000,
});
const { inspect, settle } = h;
const data = (res: { data?: unknown }) => res.data as any;

/** Connects a TikTok login; `creator` sets that creator's options on TikTok first. */
async function connectedTenant(login: string, creator?: Record<string, unknown>) {
  const { sdk, profileId } = await h.tenant(`TikTok ${login}`);
  await sandboxCall(h.e.sandbox, 'POST', '/sandbox/tiktok/_oauth/users', {
    id: `open-${login}`,
    username: login,
    name: `Creator ${login}`,
  });
  if (creator) await sandboxCall(h.e.sandbox, 'POST', '/sandbox/tiktok/_config', { openId: `open-${login}`, creator });
  const start = data(
    await sdk.connect.getConnectUrl({
      path: { platform: 'tiktok' },
      query: { profileId, redirect_url: `${h.e.baseUrl}/health` },
    }),
  );
  const landed = await followAuthUrl(`${start.authUrl}&login_hint=open-${login}`);
  const accounts = data(await sdk.accounts.listAccounts({ query: { profileId } })).accounts;
  return { sdk, profileId, start, landed, account: accounts[0], openId: `open-${login}` };
}

/** The SDK's error for a refused call (it throws on 4xx). */
const refused = (call: Promise<unknown>) =>
  call.then(
    () => null,
    (error: any) => error,
  );

describe('TikTok end to end through the official SDK', () => {
  it('connects through Login Kit: open_id, display name, avatar and the creator options cached on the account', async () => {
    const t = await connectedTenant('ttConnect1');
    const auth = new URL(t.start.authUrl);
    expect(auth.pathname).toBe('/sandbox/tiktok/v2/auth/authorize/');
    expect(Object.fromEntries(auth.searchParams)).toMatchObject({
      client_key: expect.any(String),
      response_type: 'code',
      code_challenge_method: 'S256',
    });
    expect(auth.searchParams.get('code_challenge')).toMatch(/^[0-9a-f]{64}$/);
    expect(auth.searchParams.get('scope')!.split(',')).toEqual(
      expect.arrayContaining(['user.info.basic', 'video.publish']),
    );
    expect(t.landed.searchParams.get('connected')).toBe('tiktok');
    expect(t.account).toMatchObject({
      platform: 'tiktok',
      isActive: true,
      username: 'ttConnect1',
      displayName: 'Creator ttConnect1',
    });
    expect(t.account.metadata.openId).toBe(t.openId);
    expect(t.account.profilePicture ?? t.account.avatarUrl ?? '').toContain(`/avatars/${t.openId}`);
    expect(t.account.metadata.creatorInfo).toMatchObject({
      privacyLevelOptions: expect.arrayContaining(['PUBLIC_TO_EVERYONE', 'SELF_ONLY']),
      commentDisabled: false,
    });
  });

  it('publishes a video from Herald storage by FILE_UPLOAD exactly once, after TikTok processed it, with the root tiktokSettings', async () => {
    const t = await connectedTenant('ttVideo1');
    const file = path.join(h.dir, 'clip.mp4');
    expect(testVideo(file, { seconds: 3, width: 360, height: 640 })).toBe(true);
    const bytes = fs.readFileSync(file);
    const url = await uploadToHerald(t.sdk, 'clip.mp4', bytes, 'video/mp4');
    const res = await t.sdk.posts.createPost({
      body: {
        publishNow: true,
        content: 'Behind the scenes #herald',
        mediaItems: [{ type: 'video', url }],
        tiktokSettings: { privacyLevel: 'PUBLIC_TO_EVERYONE', allowDuet: false, videoMadeWithAi: true },
        platforms: [
          {
            platform: 'tiktok',
            accountId: t.account._id,
            platformSpecificData: { commercialContentType: 'brand_organic' },
          },
        ],
      } as any,
    });
    expect(res.response.status, JSON.stringify(res.error ?? null)).toBe(201);
    const post = data(res).post;
    await h.e.runner.drain();
    expect((await getPost(t.sdk, post._id)).platforms[0].status).toBe('processing');
    expect((await inspect()).filter((p) => p.author === t.openId)).toEqual([]);
    await settle();
    const posts = (await inspect()).filter((p) => p.author === t.openId);
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({
      text: 'Behind the scenes #herald',
      media: [{ type: 'video', mimeType: 'video/mp4', size: bytes.length }],
      extra: {
        mediaType: 'VIDEO',
        source: 'FILE_UPLOAD',
        chunks: 1,
        privacy_level: 'PUBLIC_TO_EVERYONE',
        disable_duet: true,
        disable_comment: false,
        is_aigc: true,
        brand_organic_toggle: true,
        brand_content_toggle: false,
      },
    });
    const after = await getPost(t.sdk, post._id);
    expect(after.status).toBe('published');
    expect(after.platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: posts[0].id,
      platformPostUrl: `https://www.tiktok.com/@ttVideo1/video/${posts[0].id}`,
    });
    expect(posts[0].id).toMatch(/^\d{19}$/);
    // TikTok has no delete: the API says so.
    const un = await refused(
      t.sdk.posts.unpublishPost({ path: { postId: post._id }, body: { platform: 'tiktok' } as any }),
    );
    expect(un).toMatchObject({ statusCode: 400, code: 'unsupported_platform' });
    expect(un.message).toContain('cannot be unpublished');
  });

  it("uploads a video over 5 MB in chunks by TikTok's rules: chunk_size each, the last one carrying the rest", async () => {
    const t = await connectedTenant('ttChunks1');
    const size = 11 * 1024 * 1024 + 123;
    const res = await t.sdk.posts.createPost({
      body: {
        publishNow: true,
        content: 'eleven megabytes',
        mediaItems: [{ type: 'video', url: h.e.mediaUrl('tt-big.mp4', size, 'video/mp4') }],
        platforms: [{ platform: 'tiktok', accountId: t.account._id }],
      } as any,
    });
    expect(res.response.status, JSON.stringify(res.error ?? null)).toBe(201);
    await settle();
    const posts = (await inspect()).filter((p) => p.author === t.openId);
    expect(posts).toHaveLength(1);
    // floor(11 MB / 5 MB) = 2 chunks: 5 MB, then 6 MB + 123 bytes (the simulator refuses any other split).
    expect(posts[0]).toMatchObject({
      media: [{ type: 'video', size }],
      extra: { source: 'FILE_UPLOAD', chunks: 2, privacy_level: 'PUBLIC_TO_EVERYONE' },
    });
    expect((await getPost(t.sdk, data(res).post._id)).platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: posts[0].id,
    });
  });

  it('publishes a photo carousel TikTok pulls from Herald public URLs exactly once, with its cover', async () => {
    const t = await connectedTenant('ttPhoto1');
    const urls = [
      await uploadToHerald(t.sdk, 'one.jpg', await solidImage(640, 800, 'jpeg'), 'image/jpeg'),
      await uploadToHerald(t.sdk, 'two.jpg', await solidImage(800, 640, 'jpeg'), 'image/jpeg'),
    ];
    const res = await t.sdk.posts.createPost({
      body: {
        publishNow: true,
        content: 'Two views of the office',
        mediaItems: urls.map((url) => ({ type: 'image', url })),
        platforms: [
          {
            platform: 'tiktok',
            accountId: t.account._id,
            platformSpecificData: { privacyLevel: 'FOLLOWER_OF_CREATOR', photoCoverIndex: 1, autoAddMusic: true },
          },
        ],
      } as any,
    });
    expect(res.response.status, JSON.stringify(res.error ?? null)).toBe(201);
    const post = data(res).post;
    await settle();
    const posts = (await inspect()).filter((p) => p.author === t.openId);
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({
      text: 'Two views of the office',
      media: [
        { type: 'image', url: urls[0] },
        { type: 'image', url: urls[1] },
      ],
      extra: {
        mediaType: 'PHOTO',
        source: 'PULL_FROM_URL',
        photo_cover_index: 1,
        auto_add_music: true,
        privacy_level: 'FOLLOWER_OF_CREATOR',
      },
    });
    expect((await getPost(t.sdk, post._id)).platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: posts[0].id,
      platformPostUrl: `https://www.tiktok.com/@ttPhoto1/photo/${posts[0].id}`,
    });
  });

  it('refuses at creation a privacyLevel the creator does not offer, and an interaction the creator turned off', async () => {
    const t = await connectedTenant('ttPrivate1', {
      privacy_level_options: ['FOLLOWER_OF_CREATOR', 'SELF_ONLY'],
      duet_disabled: true,
    });
    const video = h.e.mediaUrl('tt-private.mp4', 200_000, 'video/mp4');
    const create = (psd: Record<string, unknown>) =>
      t.sdk.posts.createPost({
        body: {
          publishNow: true,
          content: 'not allowed',
          mediaItems: [{ type: 'video', url: video }],
          platforms: [{ platform: 'tiktok', accountId: t.account._id, platformSpecificData: psd }],
        } as any,
      });
    const res = await refused(create({ privacyLevel: 'PUBLIC_TO_EVERYONE' }));
    expect(res).toMatchObject({
      statusCode: 400,
      details: {
        fields: {
          'platforms.0.platformSpecificData.privacyLevel': [expect.stringContaining('privacy_level_option_mismatch')],
        },
      },
    });
    expect(res.message).toContain('FOLLOWER_OF_CREATOR, SELF_ONLY');
    const duet = await refused(create({ privacyLevel: 'SELF_ONLY', allowDuet: true }));
    expect(duet).toMatchObject({ statusCode: 400 });
    expect(duet.details.fields['platforms.0.platformSpecificData.allowDuet']).toEqual([
      expect.stringContaining('duet_disabled'),
    ]);
    // Branded content is never private.
    const branded = await refused(create({ privacyLevel: 'SELF_ONLY', commercialContentType: 'brand_content' }));
    expect(branded).toMatchObject({ statusCode: 400 });
    expect(branded.details.fields['platforms.0.platformSpecificData.privacyLevel']).toEqual([
      expect.stringContaining('branded_content_private'),
    ]);
    // Allowed by the creator: accepted.
    const ok = await create({ privacyLevel: 'SELF_ONLY' });
    expect(ok.response.status).toBe(201);
    expect(data(await t.sdk.posts.listPosts({ query: {} as any })).posts).toHaveLength(1);
  });

  it("refuses at creation a stored video longer than the creator's maximum duration, and takes one within it", async () => {
    const t = await connectedTenant('ttLong1', { max_video_post_duration_sec: 2 });
    expect(t.account.metadata.creatorInfo).toMatchObject({ maxVideoPostDurationSec: 2 });
    const upload = async (name: string, seconds: number) => {
      const file = path.join(h.dir, name);
      expect(testVideo(file, { seconds, width: 360, height: 640 })).toBe(true);
      return uploadToHerald(t.sdk, name, fs.readFileSync(file), 'video/mp4');
    };
    const create = (url: string) =>
      t.sdk.posts.createPost({
        body: {
          publishNow: true,
          content: 'how long',
          mediaItems: [{ type: 'video', url }],
          platforms: [
            { platform: 'tiktok', accountId: t.account._id, platformSpecificData: { privacyLevel: 'SELF_ONLY' } },
          ],
        } as any,
      });
    const long = await refused(create(await upload('tt-long.mp4', 4)));
    expect(long).toMatchObject({ statusCode: 400 });
    expect(long.details.fields['platforms.0.mediaItems.0']).toEqual([
      expect.stringMatching(/at most 2 s.*duration_check_failed/),
    ]);
    expect(data(await t.sdk.posts.listPosts({ query: {} as any })).posts).toHaveLength(0);
    const ok = await create(await upload('tt-short.mp4', 1));
    expect(ok.response.status, JSON.stringify(ok.error ?? null)).toBe(201);
  });

  it("fails the target with TikTok's reason when the creator options change between creation and publish", async () => {
    const t = await connectedTenant('ttChanged1');
    const at = new Date(h.e.env.clock.now().getTime() + 3600_000).toISOString();
    const res = await t.sdk.posts.createPost({
      body: {
        scheduledFor: at,
        content: 'public when created',
        mediaItems: [{ type: 'video', url: h.e.mediaUrl('tt-changed.mp4', 200_000, 'video/mp4') }],
        platforms: [
          {
            platform: 'tiktok',
            accountId: t.account._id,
            platformSpecificData: { privacyLevel: 'PUBLIC_TO_EVERYONE' },
          },
        ],
      } as any,
    });
    expect(res.response.status, JSON.stringify(res.error ?? null)).toBe(201);
    const post = data(res).post;
    // In the app, the creator makes the account private before the post is due.
    await sandboxCall(h.e.sandbox, 'POST', '/sandbox/tiktok/_config', {
      openId: t.openId,
      creator: { privacy_level_options: ['SELF_ONLY'] },
    });
    h.e.env.clock.advance(3600_000 + 1000);
    await settle(2);
    const after = await getPost(t.sdk, post._id);
    expect(after.status).toBe('failed');
    expect(after.platforms[0].status).toBe('failed');
    expect(after.platforms[0].errorMessage).toContain('privacy_level_option_mismatch');
    expect(after.platforms[0].errorMessage).toContain('SELF_ONLY');
    expect((await inspect()).filter((p) => p.author === t.openId)).toEqual([]);
    // The next token refresh (TikTok's access tokens last a day) brings the cached options up to date,
    // so the next such post is refused at creation.
    h.e.env.clock.advance(24 * 3600_000);
    await settle(2);
    const [account] = data(await t.sdk.accounts.listAccounts({ query: { profileId: t.profileId } })).accounts;
    expect(account.metadata.creatorInfo.privacyLevelOptions).toEqual(['SELF_ONLY']);
    const again = await refused(
      t.sdk.posts.createPost({
        body: {
          publishNow: true,
          content: 'public again?',
          mediaItems: [{ type: 'video', url: h.e.mediaUrl('tt-changed2.mp4', 200_000, 'video/mp4') }],
          platforms: [
            {
              platform: 'tiktok',
              accountId: t.account._id,
              platformSpecificData: { privacyLevel: 'PUBLIC_TO_EVERYONE' },
            },
          ],
        } as any,
      }),
    );
    expect(again).toMatchObject({ statusCode: 400 });
  });
});
