import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleBusinessSimulator } from '../../../src/sandbox/googlebusiness/index.js';
import { createOAuthE2E, type OAuthE2E } from '../../helpers/oauth-e2e.js';
import { followAuthUrl } from '../../helpers/oauth-test-platform.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';
import { sdkError } from '../../helpers/sdk.js';

/*
 * Google Business end to end through the official SDK against the simulator: a headless connect that
 * picks a location (the pending data token in place of the temp token), a local post with a BOOK call to
 * action and an image published once, a food menu written and read back, and the posts Google Business
 * cannot take refused before anything is stored.
 */

let e: OAuthE2E;
const data = (res: { data?: unknown }) => res.data as any;
const inspect = async () => (await sandboxCall(e.sandbox, 'GET', '/sandbox/googlebusiness/_inspect')).posts as any[];
const APP = 'https://app.example/cb';

beforeAll(async () => {
  e = await createOAuthE2E((now) => [googleBusinessSimulator({ now })]);
});
afterAll(async () => e?.close());

/** A tenant whose Google user finished the headless connect on the location at `pick` (0: the cafe). */
async function connectedTenant(login: string, pick = 0) {
  const { userId, apiKey } = await e.env.createUser();
  const sdk = await e.env.sdk(apiKey);
  const profile = data(await sdk.profiles.createProfile({ body: { name: `GBP ${login}` } })).profile;
  await sandboxCall(e.sandbox, 'POST', '/sandbox/googlebusiness/_oauth/users', {
    id: login,
    username: login,
    name: `Biz ${login}`,
  });
  const start = data(
    await sdk.connect.getConnectUrl({
      path: { platform: 'googlebusiness' },
      query: { profileId: profile._id, redirect_url: APP, headless: true } as any,
    }),
  );
  const landed = new URL((await followAuthUrl(`${start.authUrl}&login_hint=${login}`, APP)).url);
  const pendingDataToken = landed.searchParams.get('pendingDataToken')!;
  const listed = await sdk.connect.googleBusiness.listGoogleBusinessLocations({
    query: { profileId: profile._id, pendingDataToken } as any,
  });
  expect(listed.response.status).toBe(200);
  const locations = data(listed).locations as any[];
  const selected = await sdk.connect.googleBusiness.selectGoogleBusinessLocation({
    body: { profileId: profile._id, locationId: locations[pick].id, pendingDataToken } as any,
  });
  expect(selected.response.status, JSON.stringify(selected.error ?? null)).toBe(200);
  return { userId, apiKey, sdk, profileId: profile._id, start, landed, locations, account: data(selected).account };
}

async function createNow(
  sdk: any,
  accountId: string,
  body: Record<string, unknown>,
  psd: Record<string, unknown> = {},
) {
  return sdk.posts.createPost({
    body: {
      publishNow: true,
      platforms: [{ platform: 'googlebusiness', accountId, platformSpecificData: psd }],
      ...body,
    },
  });
}

const postRows = (tenantId: string) =>
  e.env.ctx.db.kysely.selectFrom('post').select('post_id').where('tenant_id', '=', tenantId).execute();

describe('Google Business end to end through the official SDK', () => {
  it('connects through Google consent with offline access and a location chosen from the list', async () => {
    const t = await connectedTenant('gbpConnect1', 1);
    const auth = new URL(t.start.authUrl);
    expect(auth.pathname).toBe('/sandbox/googlebusiness/o/oauth2/v2/auth');
    expect(Object.fromEntries(auth.searchParams)).toMatchObject({
      access_type: 'offline',
      prompt: 'consent',
      scope: 'https://www.googleapis.com/auth/business.manage',
    });
    // The headless redirect carries the temp token and user (step) and a pending data token at once.
    expect(Object.fromEntries(t.landed.searchParams)).toMatchObject({
      platform: 'googlebusiness',
      step: 'select_location',
      tempToken: expect.any(String),
      pendingDataToken: expect.any(String),
    });
    expect(t.locations).toHaveLength(2);
    expect(t.locations[0]).toMatchObject({
      name: 'Biz gbpConnect1 Cafe',
      category: 'Cafe',
      accountId: expect.stringMatching(/^accounts\/\d+$/),
      address: expect.stringContaining('San Francisco'),
    });
    expect(t.account).toMatchObject({
      platform: 'googlebusiness',
      username: 'Biz gbpConnect1 Shop',
      selectedLocationId: t.locations[1].id,
      selectedLocationName: 'Biz gbpConnect1 Shop',
    });

    const listed = data(await t.sdk.connect.getGmbLocations({ path: { accountId: t.account.accountId } }));
    expect(listed.selectedLocationId).toBe(t.locations[1].id);
    expect(listed.locations.map((l: any) => l.id)).toEqual(t.locations.map((l) => l.id));
    const switched = await t.sdk.connect.updateGmbLocation({
      path: { accountId: t.account.accountId },
      body: { selectedLocationId: t.locations[0].id },
    });
    expect(data(switched)).toEqual({
      message: 'Google Business location updated successfully',
      selectedLocation: { id: t.locations[0].id, name: 'Biz gbpConnect1 Cafe' },
    });
    const unknown = await sdkError(
      t.sdk.connect.updateGmbLocation({
        path: { accountId: t.account.accountId },
        body: { selectedLocationId: '12345' },
        throwOnError: true,
      } as any),
    );
    expect(unknown.statusCode).toBe(400);
  });

  it('publishes a post with a BOOK call to action and an image exactly once, with its id and URL', async () => {
    const t = await connectedTenant('gbpPost1');
    const image = 'https://images.example.com/croissant.png';
    const res = await createNow(
      t.sdk,
      t.account.accountId,
      { content: 'Book a table for brunch', mediaItems: [{ type: 'image', url: image }] },
      { callToAction: { type: 'BOOK', url: 'https://cafe.example.com/book' }, languageCode: 'en' },
    );
    expect(res.response.status, JSON.stringify(res.error ?? null)).toBe(201);
    await e.runner.drain();
    const post = data(await t.sdk.posts.getPost({ path: { postId: data(res).post._id } })).post;
    const target = post.platforms[0];
    expect(target.status).toBe('published');
    const published = (await inspect()).filter((p) => p.text === 'Book a table for brunch');
    expect(published).toHaveLength(1);
    expect(published[0]).toMatchObject({
      id: target.platformPostId,
      destination: `locations/${t.locations[0].id}`,
      media: [{ type: 'image', url: image }],
      extra: {
        callToAction: { actionType: 'BOOK', url: 'https://cafe.example.com/book' },
        languageCode: 'en',
        topicType: 'STANDARD',
      },
    });
    expect(target.platformPostId).toMatch(new RegExp(`^accounts/\\d+/locations/${t.locations[0].id}/localPosts/\\d+$`));
    expect(target.platformPostUrl).toBe(published[0].extra.searchUrl);
    // Draining again publishes nothing more.
    await e.runner.drain();
    expect((await inspect()).filter((p) => p.text === 'Book a table for brunch')).toHaveLength(1);
  });

  it('writes a food menu with PUT and reads it back equal with GET', async () => {
    const t = await connectedTenant('gbpMenu1');
    const menus = [
      {
        labels: [{ displayName: 'Lunch Menu', description: 'Available 11am-3pm', languageCode: 'en' }],
        sections: [
          {
            labels: [{ displayName: 'Appetizers' }],
            items: [
              {
                labels: [{ displayName: 'Caesar Salad', description: 'Romaine, parmesan, croutons' }],
                attributes: { price: { currencyCode: 'USD', units: '12' }, dietaryRestriction: ['VEGETARIAN'] },
              },
            ],
          },
        ],
      },
    ];
    const put = await t.sdk.gmbfoodmenus.updateGoogleBusinessFoodMenus({
      path: { accountId: t.account.accountId },
      body: { menus, updateMask: 'menus' } as any,
    });
    expect(put.response.status, JSON.stringify(put.error ?? null)).toBe(200);
    expect(data(put).menus).toEqual(menus);
    const got = data(await t.sdk.gmbfoodmenus.getGoogleBusinessFoodMenus({ path: { accountId: t.account.accountId } }));
    expect(got).toMatchObject({
      success: true,
      locationId: t.locations[0].id,
      name: expect.stringMatching(/\/foodMenus$/),
    });
    expect(got.menus).toEqual(menus);
  });

  it('refuses a post with a video and a post with an http:// image with 400, storing nothing', async () => {
    const t = await connectedTenant('gbpRefuse1');
    const before = (await inspect()).length;
    const refused = (content: string, mediaItems: unknown[]) =>
      sdkError(
        t.sdk.posts.createPost({
          body: {
            publishNow: true,
            content,
            mediaItems,
            platforms: [{ platform: 'googlebusiness', accountId: t.account.accountId }],
          },
          throwOnError: true,
        } as any),
      );
    const video = await refused('A video', [{ type: 'video', url: 'https://images.example.com/clip.mp4' }]);
    expect(video.statusCode).toBe(400);
    expect(JSON.stringify(video.details)).toMatch(/videos are not supported/);
    const http = await refused('An http image', [{ type: 'image', url: 'http://images.example.com/a.png' }]);
    expect(http.statusCode).toBe(400);
    expect(JSON.stringify(http.details)).toMatch(/https/);
    expect(await postRows(t.userId)).toEqual([]);
    await e.runner.drain();
    expect((await inspect()).length).toBe(before);
  });
});
