import type { Zernio } from '@zernio/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instagramSimulator } from '../../../src/sandbox/instagram/index.js';
import { tiktokSimulator } from '../../../src/sandbox/tiktok/index.js';
import { solidImage } from '../../fixtures/media.js';
import {
  createNow,
  createOAuthE2E,
  followAuthUrl,
  type OAuthE2E,
  settle,
  uploadToHerald,
} from '../../helpers/oauth-e2e.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';
import { body, zernio, zernioError } from '../../helpers/zernio.js';

/*
 * The Instagram operations @zernio/node 0.2.881 added, through that client with only its baseURL changed,
 * against the simulator's Graph API: the headless Facebook Login connection finished on the select-account
 * routes, then stories and their insights, the publishing limit, the follow status of people who wrote to
 * the account, and the audio catalogue, each read live from the simulator.
 */

let e: OAuthE2E;
let apiKey: string;
let sdk: Zernio;
let profileId: string;
let accountId: string;
let igUserId: string;
let igUsername: string;
const login = 'igExtras1';

/** A headless Instagram connect up to the caller's redirect: its query parameters. */
async function headlessStart(profile: string): Promise<URLSearchParams> {
  const app = `${e.baseUrl}/health`;
  const start = (
    await e.env.request(
      apiKey,
      'GET',
      `/v1/connect/instagram?profileId=${profile}&headless=true&redirect_url=${encodeURIComponent(app)}`,
    )
  ).body;
  return (await followAuthUrl(`${start.authUrl}&login_hint=${login}`)).searchParams;
}

beforeAll(async () => {
  e = await createOAuthE2E((now) => [instagramSimulator({ now }), tiktokSimulator({ now })]);
  ({ apiKey } = await e.env.createUser());
  sdk = await zernio(e.env, apiKey);
  profileId = body(await sdk.profiles.createProfile({ body: { name: 'Instagram extras' } })).profile._id;
});
afterAll(async () => e?.close());

describe('Instagram select-account through @zernio/node', () => {
  it('lists the Pages with a linked Instagram account and connects the one chosen, with its Page token', async () => {
    const handoff = await headlessStart(profileId);
    expect(handoff.get('step')).toBe('select_account');
    expect(handoff.get('platform')).toBe('instagram');
    const tempToken = handoff.get('tempToken')!;
    const pages = body(await sdk.connect.listInstagramPages({ query: { profileId, tempToken } })).pages;
    expect(pages).toHaveLength(2);
    expect(pages.map((p: any) => p.instagram_business_account.username)).toEqual(['igextras1_ig1', 'igextras1_ig2']);
    for (const p of pages) {
      expect(p.id).toMatch(/^\d+$/);
      expect(p.instagram_business_account.id).not.toBe(p.id);
      expect(p).not.toHaveProperty('access_token');
    }

    // A Page that is not the user's: 404, and the temp token stays usable.
    const stranger = await zernioError(
      sdk.connect.selectInstagramAccount({ body: { profileId, tempToken, pageId: '999999999' } }),
    );
    expect(stranger.statusCode).toBe(404);
    expect((stranger.body as any).code).toBe('page_not_found');

    const chosen = body(
      await sdk.connect.selectInstagramAccount({ body: { profileId, tempToken, pageId: pages[1].id } }),
    );
    expect(chosen.account).toMatchObject({
      platform: 'instagram',
      username: 'igextras1_ig2',
      displayName: pages[1].name,
      isActive: true,
      loginMethod: 'facebook_login',
    });
    accountId = chosen.account.accountId;
    igUserId = pages[1].instagram_business_account.id;
    igUsername = pages[1].instagram_business_account.username;
    const [account] = body(await sdk.accounts.listAccounts({ query: { profileId } })).accounts;
    expect(account).toMatchObject({ _id: accountId, metadata: { igUserId, pageId: pages[1].id } });

    // The temp token is used up.
    const again = await zernioError(
      sdk.connect.selectInstagramAccount({ body: { profileId, tempToken, pageId: pages[0].id } }),
    );
    expect(again.statusCode).toBe(400);
    expect((again.body as any).code).toBe('invalid_temp_token');
  });
});

describe('Instagram account extras through @zernio/node', () => {
  let storyId: string;
  let imageId: string;

  beforeAll(async () => {
    const old = await e.env.sdk(apiKey);
    const bytes = await solidImage(1080, 1350, 'jpeg');
    const url = await uploadToHerald(old, 'extras.jpg', bytes, 'image/jpeg');
    const feed = await createNow(old, 'instagram', accountId, {
      content: 'Feed post',
      mediaItems: [{ type: 'image', url }],
    });
    const story = await createNow(
      old,
      'instagram',
      accountId,
      { content: '', mediaItems: [{ type: 'image', url }] },
      { contentType: 'story' },
    );
    await settle(e);
    const ids = async (postId: string) =>
      (await e.env.request(apiKey, 'GET', `/v1/posts/${postId}`)).body.post.platforms[0].platformPostId as string;
    imageId = await ids(feed._id);
    storyId = await ids(story._id);
    expect(imageId).toMatch(/^\d+$/);
    expect(storyId).toMatch(/^\d+$/);
  });

  it('reads the publishing limit from content_publishing_limit', async () => {
    expect(body(await sdk.instagram.getInstagramPublishingLimit({ path: { accountId } }))).toEqual({
      quotaUsage: 2,
      quotaTotal: 100,
      quotaDurationSeconds: 86_400,
    });
  });

  it("lists the account's live stories, and reads a story's insights with the navigation breakdown", async () => {
    const stories = body(await sdk.instagram.listInstagramStories({ path: { accountId } })).data;
    expect(stories).toEqual([
      expect.objectContaining({
        id: storyId,
        mediaType: 'IMAGE',
        mediaProductType: 'STORY',
        mediaUrl: expect.stringMatching(/^https:\/\//),
        permalink: expect.stringContaining(`/stories/${igUsername}/`),
      }),
    ]);
    await sandboxCall(e.sandbox, 'POST', '/sandbox/instagram/_metrics', {
      postId: storyId,
      metrics: { views: 200, reach: 150, likes: 10, comments: 3, shares: 4, saves: 5, clicks: 8 },
    });
    const live = body(await sdk.instagram.getInstagramStoryInsights({ path: { accountId, storyId } })).data;
    expect(live).toEqual({
      source: 'live',
      metrics: {
        views: 200,
        reach: 150,
        replies: 3,
        shares: 4,
        navigation: 200,
        tapsForward: 100,
        tapsBack: 20,
        exits: 50,
        swipesForward: 30,
        profileVisits: 8,
        follows: 2,
        reposts: 2,
        totalInteractions: 22,
      },
    });

    // 25 hours later the story has expired: no longer listed, its insights unavailable.
    e.env.clock.advance(25 * 3600_000);
    expect(body(await sdk.instagram.listInstagramStories({ path: { accountId } })).data).toEqual([]);
    const gone = body(await sdk.instagram.getInstagramStoryInsights({ path: { accountId, storyId } })).data;
    expect(gone.source).toBe('unavailable');
    expect(Object.values(gone.metrics).every((v) => v === 0)).toBe(true);
    expect(body(await sdk.instagram.getInstagramPublishingLimit({ path: { accountId } })).quotaUsage).toBe(0);
  });

  it('tells whether someone who messaged the account follows it, and why it cannot for anyone else', async () => {
    const fan = await sandboxCall(e.sandbox, 'POST', '/sandbox/instagram/_inbound', {
      kind: 'message',
      account: igUsername,
      text: 'hi',
      from: { username: 'extras_fan', follows: true },
    });
    const status = body(await sdk.accounts.getInstagramFollowStatus({ path: { accountId, userId: fan.from.id } }));
    expect(status).toMatchObject({
      userId: fan.from.id,
      accountId,
      isFollower: true,
      isFollowedByAccount: false,
      username: 'extras_fan',
      followerCount: expect.any(Number),
      unavailableReason: null,
    });
    // They unfollow, then write again: the next read follows Meta.
    await sandboxCall(e.sandbox, 'POST', '/sandbox/instagram/_inbound', {
      kind: 'message',
      account: igUsername,
      text: 'bye',
      from: { username: 'extras_fan', follows: false },
    });
    expect(
      body(
        await sdk.accounts.getInstagramFollowStatus({
          path: { accountId, userId: fan.from.id },
          query: { refresh: true },
        }),
      ).isFollower,
    ).toBe(false);

    // A commenter who never messaged: Meta needs their consent.
    const commenter = await sandboxCall(e.sandbox, 'POST', '/sandbox/instagram/_inbound', {
      kind: 'comment',
      account: igUsername,
      postId: imageId,
      text: 'nice',
      from: { username: 'extras_commenter' },
    });
    expect(
      body(await sdk.accounts.getInstagramFollowStatus({ path: { accountId, userId: commenter.from.id } })),
    ).toMatchObject({ isFollower: null, unavailableReason: 'consent_required' });
    // An id that is no Instagram-scoped id at all.
    expect(
      body(await sdk.accounts.getInstagramFollowStatus({ path: { accountId, userId: '123456789' } })),
    ).toMatchObject({ isFollower: null, unavailableReason: 'not_messageable' });
  });

  it('searches the audio catalogue and reads one asset, with the Facebook Login user token', async () => {
    const music = body(
      await sdk.instagram.searchInstagramAudio({ path: { accountId }, query: { audioType: 'music', q: 'loopbacks' } }),
    ).audio;
    expect(music.map((a: any) => a.title)).toEqual(['Sandbox Sunrise', 'Golden Hour']);
    expect(music[0]).toMatchObject({
      audioId: expect.stringMatching(/^\d+$/),
      audioType: 'music',
      displayArtist: 'The Loopbacks',
      durationInMs: 30_000,
      downloadUrl: expect.stringMatching(/^https:\/\//),
    });
    const trending = body(
      await sdk.instagram.searchInstagramAudio({ path: { accountId }, query: { audioType: 'original_sound' } }),
    ).audio;
    expect(trending.map((a: any) => a.igUsername)).toEqual(['sandbox_creator', 'sandbox_waves']);
    const one = body(await sdk.instagram.getInstagramAudio({ path: { accountId, audioId: music[1].audioId } })).audio;
    expect(one).toEqual(music[1]);
  });
});

describe('Instagram extras: refusals', () => {
  it("refuses another platform's account and bad fields, calling nothing on Instagram", async () => {
    await sandboxCall(e.sandbox, 'POST', '/sandbox/tiktok/_oauth/users', { id: 'ttForIg', username: 'ttforig' });
    const start = (
      await e.env.request(
        apiKey,
        'GET',
        `/v1/connect/tiktok?profileId=${profileId}&redirect_url=${encodeURIComponent(`${e.baseUrl}/health`)}`,
      )
    ).body;
    await followAuthUrl(`${start.authUrl}&login_hint=ttForIg`);
    const tiktok = body(await sdk.accounts.listAccounts({ query: { profileId } })).accounts.find(
      (a: any) => a.platform === 'tiktok',
    )._id;
    const calls = () => e.sandbox.state('instagram').calls.length;
    const before = calls();
    for (const call of [
      () => sdk.instagram.listInstagramStories({ path: { accountId: tiktok } }),
      () => sdk.instagram.getInstagramPublishingLimit({ path: { accountId: tiktok } }),
      () => sdk.instagram.getInstagramStoryInsights({ path: { accountId: tiktok, storyId: '1' } }),
      () => sdk.instagram.searchInstagramAudio({ path: { accountId: tiktok }, query: { audioType: 'music' } }),
      () => sdk.instagram.getInstagramAudio({ path: { accountId: tiktok, audioId: '1' } }),
      () => sdk.accounts.getInstagramFollowStatus({ path: { accountId: tiktok, userId: '1' } }),
    ]) {
      const err = await zernioError(call());
      expect(err.statusCode).toBe(400);
      expect((err.body as any).code).toBe('not_instagram_account');
    }
    const badAudioType = await zernioError(
      sdk.instagram.searchInstagramAudio({ path: { accountId }, query: { audioType: 'jingle' as any } }),
    );
    expect(badAudioType.statusCode).toBe(400);
    expect((badAudioType.body as any).details.fields).toHaveProperty('audioType');
    for (const call of [
      () => sdk.instagram.getInstagramStoryInsights({ path: { accountId, storyId: '../me' } }),
      () => sdk.instagram.getInstagramAudio({ path: { accountId, audioId: 'abc' } }),
      () => sdk.accounts.getInstagramFollowStatus({ path: { accountId, userId: 'me' } }),
    ]) {
      const err = await zernioError(call());
      expect(err.statusCode).toBe(400);
      expect((err.body as any).code).toBe('validation_error');
    }
    expect(calls()).toBe(before);
  });
});
