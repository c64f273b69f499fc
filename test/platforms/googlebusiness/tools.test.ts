import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleBusinessSimulator } from '../../../src/sandbox/googlebusiness/index.js';
import { createOAuthE2E, type OAuthE2E } from '../../helpers/oauth-e2e.js';
import { followAuthUrl } from '../../helpers/oauth-test-platform.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';

/*
 * The Google Business location tools against the simulator: location details (hours as HH:MM both ways),
 * media, attributes and place action links, on the account's selected location.
 */

let e: OAuthE2E;
let apiKey: string;
let accountId: string;
let other: string;
const req = (method: string, path: string, body?: unknown) =>
  e.env.request(apiKey, method, `/v1/accounts/${accountId}/${path}`, body);

beforeAll(async () => {
  e = await createOAuthE2E((now) => [googleBusinessSimulator({ now })]);
  const user = await e.env.createUser();
  apiKey = user.apiKey;
  const profile = (await e.env.request(apiKey, 'POST', '/v1/profiles', { name: 'GBP tools' })).body.profile;
  await sandboxCall(e.sandbox, 'POST', '/sandbox/googlebusiness/_oauth/users', {
    id: 'gbpTools',
    username: 'gbpTools',
    name: 'Tools',
  });
  const start = (
    await e.env.request(
      apiKey,
      'GET',
      `/v1/connect/googlebusiness?profileId=${profile._id}&headless=true&redirect_url=${encodeURIComponent('https://app.example/cb')}`,
    )
  ).body;
  const landed = new URL((await followAuthUrl(`${start.authUrl}&login_hint=gbpTools`, 'https://app.example/')).url);
  const pendingDataToken = landed.searchParams.get('pendingDataToken')!;
  const locations = (
    await e.env.request(
      apiKey,
      'GET',
      `/v1/connect/googlebusiness/locations?profileId=${profile._id}&pendingDataToken=${pendingDataToken}`,
    )
  ).body.locations;
  other = locations[1].id;
  const done = await e.env.request(apiKey, 'POST', '/v1/connect/googlebusiness/select-location', {
    profileId: profile._id,
    locationId: locations[0].id,
    pendingDataToken,
  });
  accountId = done.body.account.accountId;
});
afterAll(async () => e?.close());

describe('Google Business location tools', () => {
  it('reads and updates location details by update mask, hours as HH:MM', async () => {
    const put = await req('PUT', 'gmb-location-details', {
      updateMask: 'regularHours,profile.description',
      regularHours: { periods: [{ openDay: 'TUESDAY', openTime: '07:30', closeDay: 'TUESDAY', closeTime: '15:00' }] },
      profile: { description: 'Now open Tuesdays' },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const got = await req('GET', 'gmb-location-details');
    expect(got.body).toMatchObject({
      success: true,
      profile: { description: 'Now open Tuesdays' },
      regularHours: { periods: [{ openDay: 'TUESDAY', openTime: '07:30', closeTime: '15:00' }] },
    });
    expect(
      (
        await req('PUT', 'gmb-location-details', {
          updateMask: 'regularHours',
          regularHours: { periods: [{ openDay: 'TUESDAY', openTime: '7h', closeDay: 'TUESDAY', closeTime: '15:00' }] },
        })
      ).status,
    ).toBe(400);
    // Another location of the same user, by ?locationId.
    const shop = await e.env.request(
      apiKey,
      'GET',
      `/v1/accounts/${accountId}/gmb-location-details?locationId=locations/${other}`,
    );
    expect(shop.body.title).toBe('Tools Shop');
  });

  it('adds, lists and deletes a photo; an http source is refused', async () => {
    const made = await req('POST', 'gmb-media', {
      sourceUrl: 'https://images.example.com/front.jpg',
      category: 'EXTERIOR',
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect((await req('GET', 'gmb-media')).body.mediaItems.map((m: any) => m.name)).toEqual([made.body.name]);
    expect((await req('POST', 'gmb-media', { sourceUrl: 'http://images.example.com/front.jpg' })).status).toBe(400);
    const id = made.body.name.split('/media/')[1];
    expect((await req('DELETE', `gmb-media?mediaId=${id}`)).body).toEqual({
      success: true,
      deleted: true,
      mediaId: id,
    });
    expect((await req('GET', 'gmb-media')).body.mediaItems).toEqual([]);
  });

  it('sets attributes by attribute mask and reads them back', async () => {
    const put = await req('PUT', 'gmb-attributes', {
      attributes: [{ name: 'has_delivery', valueType: 'BOOL', values: [true] }],
      attributeMask: 'has_delivery',
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await req('GET', 'gmb-attributes')).body.attributes).toEqual(
      expect.arrayContaining([{ name: 'has_delivery', valueType: 'BOOL', values: [true] }]),
    );
  });

  it('creates, lists and deletes a place action link; the same link twice is refused', async () => {
    const made = await req('POST', 'gmb-place-actions', {
      uri: 'https://book.example.com/t',
      placeActionType: 'DINING_RESERVATION',
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(
      (
        await req('POST', 'gmb-place-actions', {
          uri: 'https://book.example.com/t',
          placeActionType: 'DINING_RESERVATION',
        })
      ).status,
    ).toBeGreaterThanOrEqual(400);
    expect((await req('GET', 'gmb-place-actions')).body.placeActionLinks.map((l: any) => l.name)).toEqual([
      made.body.name,
    ]);
    expect((await req('DELETE', `gmb-place-actions?name=${encodeURIComponent(made.body.name)}`)).body).toMatchObject({
      deleted: true,
    });
    expect((await req('GET', 'gmb-place-actions')).body.placeActionLinks).toEqual([]);
  });
});
