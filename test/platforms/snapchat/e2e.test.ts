import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { snapchatSimulator } from '../../../src/sandbox/snapchat/index.js';
import { testVideo } from '../../fixtures/media.js';
import { createPlatformE2E, followAuthUrl, uploadToHerald } from '../../helpers/oauth-e2e.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';

/*
 * Snapchat end to end through the official SDK against the simulator: a headless connect that lists the
 * user's public profiles and selects the second one (X-Connect-Token), then a story, a saved story and a
 * spotlight, each encrypted, uploaded, processed and posted exactly once on the chosen profile. Uploads go
 * in 64 KiB parts here, so a video takes several.
 */

const h = createPlatformE2E('snapchat', (now) => [snapchatSimulator({ now })], {
  media: true,
  env: { SNAPCHAT_UPLOAD_PART_MB: '0.0625' },
});
const { inspect, settle } = h;
let video: { url: string; size: number; sha256: string };
const data = (res: { data?: unknown }) => res.data as any;

/** Connects through the headless flow, choosing the user's second public profile. */
async function connectedTenant(login: string) {
  const { sdk, profileId } = await h.tenant(`Snapchat ${login}`);
  await sandboxCall(h.e.sandbox, 'POST', '/sandbox/snapchat/_oauth/users', {
    id: login,
    username: login,
    name: `Brand ${login}`,
  });
  const start = data(
    await sdk.connect.getConnectUrl({
      path: { platform: 'snapchat' },
      query: { profileId, headless: true, redirect_url: `${h.e.baseUrl}/health` } as any,
    }),
  );
  const landed = await followAuthUrl(`${start.authUrl}&login_hint=${login}`);
  const params = Object.fromEntries(landed.searchParams);
  const headers = { 'X-Connect-Token': params.connect_token };
  const listed = await sdk.connect.snapchat.listSnapchatProfiles({
    headers,
    query: { profileId, tempToken: params.tempToken },
  } as any);
  expect(listed.response.status, JSON.stringify(listed.error ?? null)).toBe(200);
  const profiles = data(listed).publicProfiles;
  const selected = await sdk.connect.snapchat.selectSnapchatProfile({
    headers,
    body: {
      profileId,
      selectedPublicProfile: profiles[1],
      tempToken: params.tempToken,
      userProfile: JSON.parse(params.userProfile),
    },
  } as any);
  expect(selected.response.status, JSON.stringify(selected.error ?? null)).toBe(200);
  const accounts = data(await sdk.accounts.listAccounts({ query: { profileId } })).accounts;
  return { sdk, profileId, start, params, profiles, selected: data(selected), account: accounts[0] };
}

async function publish(sdk: any, accountId: string, body: Record<string, unknown>, contentType: string) {
  const res = await sdk.posts.createPost({
    body: {
      publishNow: true,
      platforms: [{ platform: 'snapchat', accountId, platformSpecificData: { contentType } }],
      ...body,
    },
  });
  expect(res.response.status, JSON.stringify(res.error ?? null)).toBe(201);
  await h.e.runner.drain();
  // Uploaded and finalized: Snap is processing the media, nothing is posted yet.
  const during = data(await sdk.posts.getPost({ path: { postId: data(res).post._id } })).post;
  expect(during.platforms[0].status).toBe('processing');
  await settle();
  const post = data(await sdk.posts.getPost({ path: { postId: data(res).post._id } })).post;
  return post.platforms[0];
}

let t: Awaited<ReturnType<typeof connectedTenant>>;

describe('Snapchat end to end through the official SDK', () => {
  it('connects headless: Snap consent, the public profiles listed with the connect token, the second one selected', async () => {
    const auth = new URL(t.start.authUrl);
    expect(auth.pathname).toBe('/sandbox/snapchat/login/oauth2/authorize');
    expect(auth.searchParams.get('scope')).toBe('snapchat-profile-api');
    expect(t.params).toMatchObject({ platform: 'snapchat', step: 'select_public_profile', profileId: t.profileId });
    expect(t.profiles).toHaveLength(2);
    expect(t.profiles[1]).toMatchObject({
      id: expect.any(String),
      display_name: 'Brand snapE2E Studio',
      username: 'snape2e_studio',
      subscriber_count: 5000,
      profile_image_url: expect.any(String),
    });
    expect(t.selected).toMatchObject({
      message: expect.any(String),
      account: { platform: 'snapchat', publicProfileName: 'Brand snapE2E Studio', username: 'snape2e_studio' },
    });
    expect(t.account).toMatchObject({
      platform: 'snapchat',
      isActive: true,
      username: 'snape2e_studio',
      displayName: 'Brand snapE2E Studio',
    });
    expect(t.account.metadata).toMatchObject({
      publicProfileId: t.profiles[1].id,
      publicProfileName: 'Brand snapE2E Studio',
    });
  });

  it("connects in standard mode through Herald's selection page, with the public profile chosen there", async () => {
    const { sdk, profileId } = await h.tenant('Snapchat standard');
    await sandboxCall(h.e.sandbox, 'POST', '/sandbox/snapchat/_oauth/users', {
      id: 'snapStd',
      username: 'snapStd',
      name: 'Brand snapStd',
    });
    const start = data(
      await sdk.connect.getConnectUrl({
        path: { platform: 'snapchat' },
        query: { profileId, redirect_url: `${h.e.baseUrl}/health` },
      }),
    );
    const shown = await fetch(`${start.authUrl}&login_hint=snapStd`);
    const html = await shown.text();
    expect(html).toContain('Brand snapStd');
    expect(html).toContain('Brand snapStd Studio');
    const tempToken = /name="tempToken" value="([^"]+)"/.exec(html)![1];
    const action = new URL(/action="([^"]+)"/.exec(html)![1], shown.url);
    const first = /name="destinationId" value="([^"]+)"/.exec(html)![1];
    const chosen = await fetch(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ tempToken, destinationId: first }),
    });
    expect(new URL(chosen.url).searchParams.get('connected')).toBe('snapchat');
    const accounts = data(await sdk.accounts.listAccounts({ query: { profileId } })).accounts;
    expect(accounts).toHaveLength(1);
    expect(accounts[0]).toMatchObject({ platform: 'snapchat', username: 'snapstd', displayName: 'Brand snapStd' });
    expect(accounts[0].metadata.publicProfileId).toBe(first);
  });

  it('publishes an image story once, after Snap processed it, on the selected profile', async () => {
    const image = h.e.mediaUrl('snap-story.png', 70_000);
    const target = await publish(
      t.sdk,
      t.account._id,
      { content: 'Stories carry no caption', mediaItems: [{ type: 'image', url: image }] },
      'story',
    );
    expect(target).toMatchObject({
      status: 'published',
      platformPostId: expect.any(String),
      platformPostUrl: 'https://www.snapchat.com/add/snape2e_studio',
    });
    const posts = (await inspect()).filter((p) => p.id === target.platformPostId);
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({
      text: '',
      destination: t.profiles[1].id,
      media: [{ type: 'image', mimeType: 'image/png', size: 70_000 }],
      extra: { contentType: 'story' },
    });
    // Encrypted in two parts of 64 KiB and more, decrypted by the simulator byte for byte.
    expect(posts[0].extra.sha256).toBe(
      createHash('sha256')
        .update(Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(70_000 - 8, 7)]))
        .digest('hex'),
    );
  });

  it("publishes a saved story titled with the text's first line, and a spotlight with the text as description, each once", async () => {
    const saved = await publish(
      t.sdk,
      t.account._id,
      { content: 'Behind the scenes\nof our launch', mediaItems: [{ type: 'video', url: video.url }] },
      'saved_story',
    );
    expect(saved).toMatchObject({
      status: 'published',
      platformPostId: expect.any(String),
      platformPostUrl: 'https://www.snapchat.com/add/snape2e_studio',
    });
    const spot = await publish(
      t.sdk,
      t.account._id,
      { content: 'Launch day #herald', mediaItems: [{ type: 'video', url: video.url }] },
      'spotlight',
    );
    expect(spot).toMatchObject({
      status: 'published',
      platformPostId: expect.any(String),
      platformPostUrl: `https://www.snapchat.com/spotlight/${spot.platformPostId}`,
    });
    const all = await inspect();
    const savedPosts = all.filter((p) => p.id === saved.platformPostId);
    const spotPosts = all.filter((p) => p.id === spot.platformPostId);
    expect(savedPosts).toHaveLength(1);
    expect(spotPosts).toHaveLength(1);
    expect(savedPosts[0]).toMatchObject({
      text: 'Behind the scenes',
      destination: t.profiles[1].id,
      extra: { contentType: 'saved_story', title: 'Behind the scenes', sha256: video.sha256 },
    });
    expect(spotPosts[0]).toMatchObject({
      text: 'Launch day #herald',
      destination: t.profiles[1].id,
      media: [{ type: 'video', mimeType: 'video/mp4', size: video.size }],
      extra: {
        contentType: 'spotlight',
        locale: 'en_US',
        durationSec: 6,
        width: 540,
        height: 960,
        sha256: video.sha256,
      },
    });
    // Each content type was posted once in all: nothing was sent twice.
    expect(all.map((p) => p.extra.contentType).sort()).toEqual(['saved_story', 'spotlight', 'story']);
  });

  it('refuses a spotlight of an image at creation, before anything is uploaded', async () => {
    const before = (await inspect()).length;
    const create = t.sdk.posts.createPost({
      body: {
        publishNow: true,
        mediaItems: [{ type: 'image', url: h.e.mediaUrl('snap-spot.png', 2000) }],
        platforms: [
          { platform: 'snapchat', accountId: t.account._id, platformSpecificData: { contentType: 'spotlight' } },
        ],
      },
    });
    // The official SDK throws its ValidationError for the 400.
    await expect(create).rejects.toThrow(/snapchat.*a spotlight is a video/);
    await settle(1);
    expect(await inspect()).toHaveLength(before);
  });
});

beforeAll(async () => {
  t = await connectedTenant('snapE2E');
  const file = path.join(h.dir, 'snap.mp4');
  expect(testVideo(file, { seconds: 6, width: 540, height: 960 })).toBe(true);
  const bytes = fs.readFileSync(file);
  video = {
    url: await uploadToHerald(t.sdk, 'snap.mp4', bytes, 'video/mp4'),
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
});
