import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { youTubeSimulator } from '../../../src/sandbox/youtube/index.js';
import { testVideo } from '../../fixtures/media.js';
import { createPlatformE2E, followAuthUrl, getPost, uploadToHerald as toHerald } from '../../helpers/oauth-e2e.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';

/*
 * YouTube end to end through the official SDK against the simulator: connect, a video with title,
 * thumbnail and first comment, a vertical Short from Herald's storage (and the validation tool saying it will be a Short), an upload cut in the middle that
 * resumes from YouTube's offset, the daily quota, a revoked grant. Uploads go in 512 KiB chunks here.
 */

const h = createPlatformE2E('youtube', (now) => [youTubeSimulator({ now })], {
  media: true,
  env: { YOUTUBE_UPLOAD_CHUNK_MB: '0.5' },
  settleRounds: 6,
});
const { inspect, settle, createNow } = h;
const CHUNK = 512 * 1024;
const data = (res: { data?: unknown }) => res.data as any;

async function connectedTenant(login: string) {
  const { userId, apiKey, sdk, profileId } = await h.tenant(`YouTube ${login}`);
  await sandboxCall(h.e.sandbox, 'POST', '/sandbox/youtube/_oauth/users', {
    id: login,
    username: login,
    name: `Channel ${login}`,
  });
  const start = data(
    await sdk.connect.getConnectUrl({
      path: { platform: 'youtube' },
      query: { profileId, redirect_url: `${h.e.baseUrl}/health` },
    }),
  );
  const landed = await followAuthUrl(`${start.authUrl}&login_hint=${login}`);
  const accounts = data(await sdk.accounts.listAccounts({ query: { profileId } })).accounts;
  return { userId, apiKey, sdk, profileId, start, landed, account: accounts[0] };
}

async function uploadToHerald(sdk: any, file: string) {
  const bytes = fs.readFileSync(file);
  return { url: await toHerald(sdk, path.basename(file), bytes, 'video/mp4'), size: bytes.length };
}

/** The byte ranges YouTube received for a video: each byte once, in order, from 0 to the end. */
function expectEachByteOnce(ranges: { first: number; last: number }[], size: number) {
  expect(ranges[0].first).toBe(0);
  for (let i = 1; i < ranges.length; i++) expect(ranges[i].first, `range ${i}`).toBe(ranges[i - 1].last + 1);
  expect(ranges.at(-1)!.last).toBe(size - 1);
}

describe('YouTube end to end through the official SDK', () => {
  it('connects through Google consent with offline access: the channel is the account', async () => {
    const t = await connectedTenant('ytConnect1');
    const auth = new URL(t.start.authUrl);
    expect(auth.pathname).toBe('/sandbox/youtube/o/oauth2/v2/auth');
    expect(Object.fromEntries(auth.searchParams)).toMatchObject({
      access_type: 'offline',
      prompt: 'consent',
      response_type: 'code',
      code_challenge_method: 'S256',
    });
    expect(auth.searchParams.get('scope')).toContain('https://www.googleapis.com/auth/youtube.upload');
    expect(t.landed.searchParams.get('connected')).toBe('youtube');
    expect(t.account).toMatchObject({
      platform: 'youtube',
      isActive: true,
      username: 'ytconnect1',
      displayName: 'Channel ytConnect1',
    });
    expect(t.account.platformUserId ?? t.account.metadata?.channelId ?? '').toMatch(/^UC/);
  });

  it('publishes a video with title, thumbnail and first comment exactly once, after YouTube processed it', async () => {
    const t = await connectedTenant('ytVideo1');
    const video = h.e.mediaUrl('yt-video.mp4', 1_300_000, 'video/mp4');
    const thumb = h.e.mediaUrl('yt-thumb.png', 4000);
    const post = await createNow(
      t.sdk,
      t.account._id,
      { content: 'How we ship, in four minutes', mediaItems: [{ type: 'video', url: video, thumbnail: thumb }] },
      {
        title: 'Shipping at Herald',
        firstComment: 'Chapters below',
        tags: ['herald', 'shipping'],
        visibility: 'unlisted',
        containsSyntheticMedia: true,
      },
    );
    await h.e.runner.drain();
    // Uploaded, and still processing: no thumbnail, no comment yet.
    const during = await getPost(t.sdk, post._id);
    expect(during.platforms[0].status).toBe('processing');
    await settle();
    const after = await getPost(t.sdk, post._id);
    const posts = (await inspect()).filter((p) => p.extra.title === 'Shipping at Herald');
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({
      text: 'How we ship, in four minutes',
      media: [{ type: 'video', mimeType: 'video/mp4', size: 1_300_000 }],
      extra: {
        tags: ['herald', 'shipping'],
        categoryId: '22',
        privacyStatus: 'unlisted',
        containsSyntheticMedia: true,
        madeForKids: false,
        uploadStatus: 'processed',
        thumbnail: { mimeType: 'image/png', size: 4000 },
        comments: [{ text: 'Chapters below' }],
      },
    });
    expectEachByteOnce(posts[0].extra.receivedRanges, 1_300_000);
    expect(posts[0].extra.receivedRanges).toHaveLength(3);
    expect(after.status).toBe('published');
    expect(after.platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: posts[0].id,
      platformPostUrl: `https://www.youtube.com/watch?v=${posts[0].id}`,
      firstCommentResult: { status: 'posted', commentId: expect.any(String) },
    });
  });

  it('the validation tool warns that a vertical or square video of at most 3 minutes will be a Short, and not for a landscape one', async () => {
    const t = await connectedTenant('ytWarn1');
    const check = async (name: string, width: number, height: number) => {
      const file = path.join(h.dir, name);
      expect(testVideo(file, { seconds: 2, width, height })).toBe(true);
      const media = await uploadToHerald(t.sdk, file);
      const res = await h.e.env.request(t.apiKey, 'POST', '/v1/tools/validate/post', {
        content: 'clip',
        mediaItems: [{ type: 'video', url: media.url }],
        platforms: [{ platform: 'youtube' }],
      });
      expect(res.status).toBe(200);
      expect(res.body.valid).toBe(true);
      return res.body.warnings as { platform: string; warning: string }[];
    };
    expect(await check('warn-vertical.mp4', 360, 640)).toEqual([
      { platform: 'youtube', warning: expect.stringContaining('YouTube will publish it as a Short') },
    ]);
    expect(await check('warn-square.mp4', 320, 320)).toEqual([
      { platform: 'youtube', warning: expect.stringContaining('320x320 video') },
    ]);
    expect(await check('warn-landscape.mp4', 640, 360)).toEqual([]);
  });

  it("publishes a vertical Short from Herald's storage exactly once", async () => {
    const t = await connectedTenant('ytShort1');
    const file = path.join(h.dir, 'short.mp4');
    expect(testVideo(file, { seconds: 2, width: 360, height: 640 })).toBe(true);
    const media = await uploadToHerald(t.sdk, file);
    const post = await createNow(t.sdk, t.account._id, {
      content: 'A vertical short #shorts',
      mediaItems: [{ type: 'video', url: media.url }],
    });
    await settle();
    const posts = (await inspect()).filter((p) => p.text === 'A vertical short #shorts');
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({
      media: [{ type: 'video', size: media.size }],
      extra: { title: 'A vertical short #shorts', uploadStatus: 'processed' },
    });
    expectEachByteOnce(posts[0].extra.receivedRanges, media.size);
    const after = await getPost(t.sdk, post._id);
    expect(after.platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: posts[0].id,
      platformPostUrl: `https://www.youtube.com/watch?v=${posts[0].id}`,
    });
  });

  it('an upload cut in the middle resumes from the offset YouTube reports: each byte range arrives once', async () => {
    const t = await connectedTenant('ytResume1');
    const size = 5 * CHUNK + 1000;
    // The session request and two chunks go through; the third chunk is cut after half of it arrived.
    const sessions = () =>
      h.e.sandbox
        .state('youtube')
        .calls.filter((c) => c.method === 'POST' && c.path.includes('/upload/youtube/v3/videos?uploadType=resumable'))
        .length;
    const before = sessions();
    await sandboxCall(h.e.sandbox, 'POST', '/sandbox/youtube/_faults', {
      kind: 'unavailable',
      count: 1,
      op: 'upload',
      after: 3,
    });
    const post = await createNow(t.sdk, t.account._id, {
      content: 'resumed upload',
      mediaItems: [{ type: 'video', url: h.e.mediaUrl('yt-resume.mp4', size, 'video/mp4') }],
    });
    await settle();
    const posts = (await inspect()).filter((p) => p.text === 'resumed upload');
    expect(posts).toHaveLength(1);
    const ranges = posts[0].extra.receivedRanges as { first: number; last: number }[];
    expectEachByteOnce(ranges, size);
    // The cut chunk kept its first 256 KiB; the upload went on from there, not from the chunk's start.
    expect(ranges[2]).toEqual({ first: 2 * CHUNK, last: 2 * CHUNK + 256 * 1024 - 1 });
    expect(ranges[3].first).toBe(2 * CHUNK + 256 * 1024);
    // One session: the upload resumed in it, it did not start again.
    expect(sessions() - before).toBe(1);
    expect((await getPost(t.sdk, post._id)).platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: posts[0].id,
    });
  });

  it('the daily quota waits until midnight Pacific, then publishes once; a deleted video is unpublished', async () => {
    const t = await connectedTenant('ytQuota1');
    await sandboxCall(h.e.sandbox, 'POST', '/sandbox/youtube/_faults', { kind: 'rate_limited', count: 1 });
    const post = await createNow(t.sdk, t.account._id, {
      content: 'over quota',
      mediaItems: [{ type: 'video', url: h.e.mediaUrl('yt-quota.mp4', 300_000, 'video/mp4') }],
    });
    await settle(2);
    expect((await inspect()).filter((p) => p.text === 'over quota')).toEqual([]);
    const waiting = await getPost(t.sdk, post._id);
    expect(waiting.platforms[0].status).not.toBe('failed');
    h.e.env.clock.advance(25 * 3600_000);
    await settle();
    const posts = (await inspect()).filter((p) => p.text === 'over quota');
    expect(posts).toHaveLength(1);
    expect((await getPost(t.sdk, post._id)).status).toBe('published');

    const res = await t.sdk.posts.unpublishPost({ path: { postId: post._id }, body: { platform: 'youtube' } });
    expect(res.response.status).toBe(200);
    expect((await inspect()).find((p) => p.id === posts[0].id)).toMatchObject({ deleted: true });
  });

  it('a revoked grant (invalid_grant at refresh) disconnects the account and uploads nothing', async () => {
    const t = await connectedTenant('ytRevoked1');
    await sandboxCall(h.e.sandbox, 'POST', '/sandbox/youtube/_oauth/revoke', { userId: 'ytRevoked1' });
    // Past the hour an access token lives: Herald refreshes first, and Google answers invalid_grant.
    h.e.env.clock.advance(2 * 3600_000);
    const post = await createNow(t.sdk, t.account._id, {
      content: 'never uploaded',
      mediaItems: [{ type: 'video', url: h.e.mediaUrl('yt-revoked.mp4', 300_000, 'video/mp4') }],
    });
    await settle(2);
    expect((await inspect()).filter((p) => p.text === 'never uploaded')).toEqual([]);
    expect((await getPost(t.sdk, post._id)).status).toBe('failed');
    const accounts = data(
      await t.sdk.accounts.listAccounts({ query: { profileId: t.profileId, includeOverLimit: true } }),
    ).accounts;
    expect(accounts.find((a: any) => a._id === t.account._id)).toMatchObject({ isActive: false });
  });
});
