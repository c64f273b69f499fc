import type { Zernio } from '@zernio/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tiktokSimulator } from '../../../src/sandbox/tiktok/index.js';
import { youTubeSimulator } from '../../../src/sandbox/youtube/index.js';
import { createOAuthE2E, followAuthUrl, type OAuthE2E } from '../../helpers/oauth-e2e.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';
import { body, zernio, zernioError } from '../../helpers/zernio.js';

/*
 * The TikTok operations @zernio/node 0.2.881 added, through that client with only its baseURL changed:
 * creator info read from the simulator's creator_info/query (it follows the creator's options as TikTok
 * reports them), and commercial music and location search, which are TikTok API for Business calls a
 * Login Kit account cannot make: 400 PLATFORM_LIMITATION, after the usual account and input checks.
 */

let e: OAuthE2E;
let apiKey: string;
let sdk: Zernio;
let profileId: string;
let accountId: string;
const openId = 'open-ttExtras1';

async function connect(platform: string, login: { id: string; username: string; name: string }) {
  await sandboxCall(e.sandbox, 'POST', `/sandbox/${platform}/_oauth/users`, login);
  const start = (
    await e.env.request(
      apiKey,
      'GET',
      `/v1/connect/${platform}?profileId=${profileId}&redirect_url=${encodeURIComponent(`${e.baseUrl}/health`)}`,
    )
  ).body;
  await followAuthUrl(`${start.authUrl}&login_hint=${login.id}`);
  return (await e.env.request(apiKey, 'GET', `/v1/accounts?profileId=${profileId}`)).body.accounts.find(
    (a: any) => a.platform === platform,
  );
}

beforeAll(async () => {
  e = await createOAuthE2E((now) => [tiktokSimulator({ now }), youTubeSimulator({ now })]);
  ({ apiKey } = await e.env.createUser());
  sdk = await zernio(e.env, apiKey);
  profileId = (await e.env.request(apiKey, 'POST', '/v1/profiles', { name: 'TikTok extras' })).body.profile._id;
  accountId = (await connect('tiktok', { id: openId, username: 'ttextras1', name: 'Creator Extras' }))._id;
});
afterAll(async () => e?.close());

describe('TikTok extras through @zernio/node', () => {
  it('reads creator info from creator_info/query, for videos and for photos', async () => {
    const video = body(await sdk.accounts.getTikTokCreatorInfo({ path: { accountId } }));
    expect(video).toMatchObject({
      creator: {
        nickname: 'Creator Extras',
        avatarUrl: expect.stringContaining(`/avatars/${openId}.jpeg`),
        canPostMore: true,
      },
      privacyLevels: expect.arrayContaining([
        { value: 'PUBLIC_TO_EVERYONE', label: 'Everyone' },
        { value: 'SELF_ONLY', label: 'Only me' },
      ]),
      postingLimits: {
        maxVideoDurationSec: expect.any(Number),
        interactionSettings: {
          allow_comment: { enabled: true, required: true, default: false, label: expect.any(String) },
          allow_duet: { enabled: true, required: true },
          allow_stitch: { enabled: true, required: true },
        },
      },
    });
    expect(video.commercialContentTypes.map((c: any) => c.value)).toEqual(['none', 'brand_organic', 'brand_content']);

    // The creator changes their options in the app: the next read follows TikTok.
    await sandboxCall(e.sandbox, 'POST', '/sandbox/tiktok/_config', {
      openId,
      creator: {
        privacy_level_options: ['FOLLOWER_OF_CREATOR', 'SELF_ONLY'],
        duet_disabled: true,
        max_video_post_duration_sec: 60,
      },
    });
    const changed = body(
      await sdk.accounts.getTikTokCreatorInfo({ path: { accountId }, query: { mediaType: 'video' } }),
    );
    expect(changed.privacyLevels.map((p: any) => p.value)).toEqual(['FOLLOWER_OF_CREATOR', 'SELF_ONLY']);
    expect(changed.postingLimits).toMatchObject({
      maxVideoDurationSec: 60,
      interactionSettings: { allow_duet: { enabled: false } },
    });

    const photo = body(await sdk.accounts.getTikTokCreatorInfo({ path: { accountId }, query: { mediaType: 'photo' } }));
    expect(photo.postingLimits.interactionSettings).toMatchObject({
      allow_comment: { enabled: true },
      allow_duet: null,
      allow_stitch: null,
    });
    expect(photo.postingLimits.maxVideoDurationSec).toBeUndefined();
  });

  it('answers commercial music and location search with 400 PLATFORM_LIMITATION, calling nothing on TikTok', async () => {
    const calls = () => e.sandbox.state('tiktok').calls.length;
    const before = calls();
    const music = await zernioError(
      sdk.accounts.listTikTokCommercialMusic({ path: { accountId }, query: { countryCode: 'ES' } }),
    );
    expect(music.statusCode).toBe(400);
    expect((music.body as any).code).toBe('PLATFORM_LIMITATION');
    expect(music.message).toMatch(/TikTok for Business/);
    const places = await zernioError(
      sdk.accounts.searchTikTokLocations({ path: { accountId }, query: { query: 'Madrid' } }),
    );
    expect(places.statusCode).toBe(400);
    expect((places.body as any).code).toBe('PLATFORM_LIMITATION');
    expect(calls()).toBe(before);
  });
});

describe('TikTok extras: refusals', () => {
  it("refuses another platform's account and bad fields", async () => {
    const youtube = await connect('youtube', { id: 'ytForTt', username: 'ytForTt', name: 'Channel' });
    for (const call of [
      () => sdk.accounts.getTikTokCreatorInfo({ path: { accountId: youtube._id } }),
      () => sdk.accounts.listTikTokCommercialMusic({ path: { accountId: youtube._id } }),
      () => sdk.accounts.searchTikTokLocations({ path: { accountId: youtube._id }, query: { query: 'x' } }),
    ]) {
      const err = await zernioError(call());
      expect(err.statusCode).toBe(400);
      expect((err.body as any).code).toBe('not_tiktok_account');
    }
    const noQuery = await zernioError(sdk.accounts.searchTikTokLocations({ path: { accountId }, query: {} as any }));
    expect(noQuery.statusCode).toBe(400);
    expect((noQuery.body as any).code).toBe('validation_error');
    const badMedia = await zernioError(
      sdk.accounts.getTikTokCreatorInfo({ path: { accountId }, query: { mediaType: 'gif' as any } }),
    );
    expect(badMedia.statusCode).toBe(400);
    expect((badMedia.body as any).details.fields).toHaveProperty('mediaType');
  });
});
