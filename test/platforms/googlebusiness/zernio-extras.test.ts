import type { Zernio } from '@zernio/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleBusinessSimulator } from '../../../src/sandbox/googlebusiness/index.js';
import { verificationPin } from '../../../src/sandbox/googlebusiness/verifications.js';
import { youTubeSimulator } from '../../../src/sandbox/youtube/index.js';
import { createOAuthE2E, type OAuthE2E } from '../../helpers/oauth-e2e.js';
import { followAuthUrl } from '../../helpers/oauth-test-platform.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';
import { body, zernio, zernioError } from '../../helpers/zernio.js';

/*
 * The Google Business Profile operations @zernio/node 0.2.881 added (verifications, attribute metadata,
 * place action update, services, reviews by id, batch and reply), called through that client with only
 * its baseURL changed, against the simulator: each answer's shape, and what it did on the simulator
 * (read back through Google's own API there). Then the refusals: another platform's account, a
 * read-only key, a profile-scoped key outside its profile, bad fields.
 */

let e: OAuthE2E;
let apiKey: string;
let sdk: Zernio;
let accountId: string;
let profileId: string;
let locations: { id: string; accountId: string }[];
const G = 'https://www.googleapis.com/auth/business.manage';

/** Google's own API on the simulator, with the account's token (what the platform itself shows). */
async function google(method: string, path: string, json?: unknown) {
  const res = await fetch(`${e.sandbox.url}/sandbox/googlebusiness${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}) },
    body: json ? JSON.stringify(json) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}
let token = '';

beforeAll(async () => {
  e = await createOAuthE2E((now) => [googleBusinessSimulator({ now }), youTubeSimulator({ now })]);
  ({ apiKey } = await e.env.createUser());
  sdk = await zernio(e.env, apiKey);
  profileId = (await e.env.request(apiKey, 'POST', '/v1/profiles', { name: 'GBP extras' })).body.profile._id;
  await sandboxCall(e.sandbox, 'POST', '/sandbox/googlebusiness/_oauth/users', {
    id: 'gbpExtras',
    username: 'gbpExtras',
    name: 'Extras',
  });
  const start = (
    await e.env.request(
      apiKey,
      'GET',
      `/v1/connect/googlebusiness?profileId=${profileId}&headless=true&redirect_url=${encodeURIComponent('https://app.example/cb')}`,
    )
  ).body;
  const landed = new URL((await followAuthUrl(`${start.authUrl}&login_hint=gbpExtras`, 'https://app.example/')).url);
  const pendingDataToken = landed.searchParams.get('pendingDataToken')!;
  locations = (
    await e.env.request(
      apiKey,
      'GET',
      `/v1/connect/googlebusiness/locations?profileId=${profileId}&pendingDataToken=${pendingDataToken}`,
    )
  ).body.locations;
  const done = await e.env.request(apiKey, 'POST', '/v1/connect/googlebusiness/select-location', {
    profileId,
    locationId: locations[0].id,
    pendingDataToken,
  });
  accountId = done.body.account.accountId;
  // A token of the same Google user, to read the simulator through Google's API as the platform shows it.
  const consent = await fetch(
    `${e.sandbox.url}/sandbox/googlebusiness/o/oauth2/v2/auth?client_id=c&redirect_uri=${encodeURIComponent('https://app.example/cb')}&response_type=code&scope=${encodeURIComponent(G)}&login_hint=gbpExtras&state=s`,
    { redirect: 'manual' },
  );
  const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
  const exchanged = await fetch(`${e.sandbox.url}/sandbox/googlebusiness/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'https://app.example/cb',
      client_id: 'c',
      client_secret: 's',
    }),
  });
  token = ((await exchanged.json()) as { access_token: string }).access_token;
});
afterAll(async () => e?.close());

const p = () => ({ accountId });

describe('Google Business Profile extras through @zernio/node', () => {
  it('reads the verification state, fetches options, starts a verification and completes it with the PIN', async () => {
    const shop = locations[1].id;
    const before = body(
      await sdk.gmbverifications.getGoogleBusinessVerifications({ path: p(), query: { locationId: shop } }),
    );
    expect(before).toEqual({
      success: true,
      accountId,
      locationId: shop,
      voiceOfMerchantState: {
        hasVoiceOfMerchant: false,
        hasBusinessAuthority: false,
        verify: { hasPendingVerification: false },
      },
      verifications: [],
    });
    const cafe = body(await sdk.gmbverifications.getGoogleBusinessVerifications({ path: p() }));
    expect(cafe.voiceOfMerchantState).toEqual({ hasVoiceOfMerchant: true, hasBusinessAuthority: true });
    expect(cafe.verifications).toEqual([
      expect.objectContaining({
        method: 'ADDRESS',
        state: 'COMPLETED',
        name: expect.stringMatching(/^locations\/\d+\/verifications\//),
      }),
    ]);

    const options = body(
      await sdk.gmbverifications.fetchGoogleBusinessVerificationOptions({
        path: p(),
        query: { locationId: shop },
        body: { languageCode: 'en' },
      }),
    );
    expect(options.options.map((o: any) => o.verificationMethod)).toEqual(['ADDRESS', 'PHONE_CALL', 'SMS', 'EMAIL']);
    const phone = options.options.find((o: any) => o.verificationMethod === 'SMS').phoneNumber;
    expect(phone).toMatch(/^\+1 /);

    const started = body(
      await sdk.gmbverifications.startGoogleBusinessVerification({
        path: p(),
        query: { locationId: shop },
        body: { method: 'SMS', phoneNumber: phone, languageCode: 'en' },
      }),
    );
    expect(started).toMatchObject({
      success: true,
      locationId: shop,
      verification: {
        method: 'SMS',
        state: 'PENDING',
        name: expect.stringMatching(new RegExp(`^locations/${shop}/verifications/`)),
      },
    });
    const pending = (await google('GET', `/v1/locations/${shop}/VoiceOfMerchantState`)).body;
    expect(pending).toEqual({
      hasVoiceOfMerchant: false,
      hasBusinessAuthority: false,
      verify: { hasPendingVerification: true },
    });

    const verificationId = started.verification.name.split('/').pop();
    const wrong = await zernioError(
      sdk.gmbverifications.completeGoogleBusinessVerification({
        path: { accountId, verificationId },
        query: { locationId: shop },
        body: { pin: '00000' },
      }),
    );
    expect(wrong.statusCode).toBe(400);
    const done = body(
      await sdk.gmbverifications.completeGoogleBusinessVerification({
        path: { accountId, verificationId },
        query: { locationId: shop },
        body: { pin: verificationPin(started.verification.name) },
      }),
    );
    expect(done.verification).toMatchObject({ name: started.verification.name, state: 'COMPLETED' });
    expect((await google('GET', `/v1/locations/${shop}/VoiceOfMerchantState`)).body).toEqual({
      hasVoiceOfMerchant: true,
      hasBusinessAuthority: true,
    });
    const after = body(
      await sdk.gmbverifications.getGoogleBusinessVerifications({ path: p(), query: { locationId: shop } }),
    );
    expect(after.verifications).toEqual([
      expect.objectContaining({ name: started.verification.name, state: 'COMPLETED', method: 'SMS' }),
    ]);
  });

  it('lists attribute metadata by location and by category', async () => {
    const byLocation = body(await sdk.gmbattributes.getGmbAttributeMetadata({ path: p() }));
    expect(byLocation).toMatchObject({ success: true, accountId, locationId: locations[0].id });
    expect(byLocation.attributeMetadata.map((a: any) => a.parent)).toContain('attributes/has_delivery');
    expect(byLocation.attributeMetadata.find((a: any) => a.parent === 'attributes/wi_fi')).toMatchObject({
      valueType: 'ENUM',
      displayName: 'Wi-Fi',
      valueMetadata: expect.arrayContaining([{ value: 'free_wi_fi', displayName: 'Free' }]),
    });
    const paged = body(
      await sdk.gmbattributes.getGmbAttributeMetadata({
        path: p(),
        query: { categoryName: 'categories/gcid:gift_shop', regionCode: 'US', pageSize: 2 },
      }),
    );
    expect(paged.locationId).toBeUndefined();
    expect(paged.attributeMetadata).toHaveLength(2);
    const rest = body(
      await sdk.gmbattributes.getGmbAttributeMetadata({
        path: p(),
        query: { categoryName: 'categories/gcid:gift_shop', regionCode: 'US', pageToken: paged.nextPageToken },
      }),
    );
    expect([...paged.attributeMetadata, ...rest.attributeMetadata].map((a: any) => a.parent)).toContain(
      'attributes/has_in_store_pickup',
    );
    const both = await zernioError(
      sdk.gmbattributes.getGmbAttributeMetadata({
        path: p(),
        query: { categoryName: 'categories/gcid:cafe', locationId: locations[0].id, regionCode: 'US' },
      }),
    );
    expect(both.statusCode).toBe(400);
    expect((both.body as any).details.fields).toHaveProperty('categoryName');
  });

  it('updates a place action link in place', async () => {
    const made = await e.env.request(apiKey, 'POST', `/v1/accounts/${accountId}/gmb-place-actions`, {
      uri: 'https://book.example.com/a',
      placeActionType: 'DINING_RESERVATION',
    });
    expect(made.status).toBe(200);
    const updated = body(
      await sdk.gmbplaceactions.updateGoogleBusinessPlaceAction({
        path: p(),
        body: { name: made.body.name, uri: 'https://book.example.com/b' },
      }),
    );
    expect(updated).toEqual({
      success: true,
      name: made.body.name,
      uri: 'https://book.example.com/b',
      placeActionType: 'DINING_RESERVATION',
    });
    const links = (await google('GET', `/v1/locations/${locations[0].id}/placeActionLinks`)).body.placeActionLinks;
    expect(links).toEqual([
      expect.objectContaining({
        name: made.body.name,
        uri: 'https://book.example.com/b',
        placeActionType: 'DINING_RESERVATION',
      }),
    ]);
    const none = await zernioError(
      sdk.gmbplaceactions.updateGoogleBusinessPlaceAction({ path: p(), body: { name: made.body.name } }),
    );
    expect(none.statusCode).toBe(400);
  });

  it('replaces the services and reads them back from the location', async () => {
    expect(body(await sdk.gmbservices.getGoogleBusinessServices({ path: p() }))).toEqual({
      success: true,
      accountId,
      locationId: locations[0].id,
      services: [],
    });
    const serviceItems = [
      {
        structuredServiceItem: { serviceTypeId: 'job_type_id:espresso', description: 'Double shot' },
        price: { currencyCode: 'USD', units: '3', nanos: 500_000_000 },
      },
      {
        freeFormServiceItem: {
          category: 'categories/gcid:cafe',
          label: { displayName: 'Latte art class', languageCode: 'en' },
        },
      },
    ];
    const put = body(await sdk.gmbservices.updateGoogleBusinessServices({ path: p(), body: { serviceItems } }));
    expect(put).toEqual({ success: true, services: serviceItems });
    expect((await google('GET', `/v1/locations/${locations[0].id}?readMask=serviceItems`)).body.serviceItems).toEqual(
      serviceItems,
    );
    expect(body(await sdk.gmbservices.getGoogleBusinessServices({ path: p() })).services).toEqual(serviceItems);
    const both = await zernioError(
      sdk.gmbservices.updateGoogleBusinessServices({
        path: p(),
        body: { serviceItems: [{ ...serviceItems[0], ...serviceItems[1] }] },
      }),
    );
    expect(both.statusCode).toBe(400);
    expect((both.body as any).details.fields).toHaveProperty('serviceItems.0');
    expect((await google('GET', `/v1/locations/${locations[0].id}?readMask=serviceItems`)).body.serviceItems).toEqual(
      serviceItems,
    );
  });

  it('reads a review by id, replies, deletes the reply, and batches reviews of both locations', async () => {
    const cafeReview = await sandboxCall(e.sandbox, 'POST', '/sandbox/googlebusiness/_inbound', {
      kind: 'review',
      account: locations[0].id,
      rating: 4,
      text: 'Good coffee',
      reviewer: { name: 'Ann' },
    });
    e.env.clock.advance(1000);
    const shopReview = await sandboxCall(e.sandbox, 'POST', '/sandbox/googlebusiness/_inbound', {
      kind: 'review',
      account: locations[1].id,
      rating: 2,
      text: 'Closed early',
    });
    const got = body(await sdk.accounts.getGoogleBusinessReview({ path: { accountId, reviewId: cafeReview.id } }));
    expect(got).toMatchObject({
      success: true,
      accountId,
      locationId: locations[0].id,
      review: {
        id: cafeReview.id,
        name: cafeReview.name,
        rating: 4,
        starRating: 'FOUR',
        comment: 'Good coffee',
        reviewer: { displayName: 'Ann', isAnonymous: false },
        reviewReply: null,
      },
    });
    // A review of the other location is not found on the selected one.
    expect(
      (await zernioError(sdk.accounts.getGoogleBusinessReview({ path: { accountId, reviewId: shopReview.id } })))
        .statusCode,
    ).toBe(400);
    expect(
      body(
        await sdk.accounts.getGoogleBusinessReview({
          path: { accountId, reviewId: shopReview.id },
          query: { locationId: locations[1].id },
        }),
      ).review.rating,
    ).toBe(2);

    const replied = body(
      await sdk.accounts.replyToGoogleBusinessReview({
        path: { accountId, reviewId: cafeReview.id },
        body: { comment: 'Thank you, Ann!' },
      }),
    );
    expect(replied).toEqual({ success: true, reviewId: cafeReview.id, platform: 'googlebusiness' });
    const onGoogle = (await google('GET', `/v4/${cafeReview.name}`)).body;
    expect(onGoogle.reviewReply).toMatchObject({ comment: 'Thank you, Ann!' });
    expect(
      body(await sdk.accounts.getGoogleBusinessReview({ path: { accountId, reviewId: cafeReview.id } })).review
        .reviewReply,
    ).toMatchObject({ comment: 'Thank you, Ann!' });

    const batch = body(
      await sdk.accounts.batchGetGoogleBusinessReviews({
        path: p(),
        body: { locationNames: locations.map((l) => `${l.accountId}/locations/${l.id}`) },
      }),
    );
    expect(batch).toMatchObject({ success: true, accountId });
    expect(batch.locationReviews.map((r: any) => [r.name, r.review.reviewId])).toEqual([
      [`${locations[1].accountId}/locations/${locations[1].id}`, shopReview.id],
      [`${locations[0].accountId}/locations/${locations[0].id}`, cafeReview.id],
    ]);
    expect(batch.locationReviews[1].review.reviewReply).toMatchObject({ comment: 'Thank you, Ann!' });
    const byRating = body(
      await sdk.accounts.batchGetGoogleBusinessReviews({
        path: p(),
        body: {
          locationNames: locations.map((l) => `${l.accountId}/locations/${l.id}`),
          orderBy: 'rating',
          pageSize: 1,
        },
      }),
    );
    expect(byRating.locationReviews.map((r: any) => r.review.reviewId)).toEqual([shopReview.id]);
    expect(byRating.nextPageToken).toEqual(expect.any(String));

    const deleted = body(
      await sdk.accounts.deleteGoogleBusinessReviewReply({ path: { accountId, reviewId: cafeReview.id } }),
    );
    expect(deleted).toMatchObject({ success: true, platform: 'googlebusiness' });
    expect((await google('GET', `/v4/${cafeReview.name}`)).body.reviewReply).toBeUndefined();
    const bad = await zernioError(
      sdk.accounts.batchGetGoogleBusinessReviews({ path: p(), body: { locationNames: ['locations/1'] } }),
    );
    expect(bad.statusCode).toBe(400);
    expect((bad.body as any).code).toBe('validation_error');
  });
});

describe('Google Business Profile location assign through @zernio/node', () => {
  it('connects another location onto another profile with the same grant, once per profile', async () => {
    const client = (await e.env.request(apiKey, 'POST', '/v1/profiles', { name: 'Client B' })).body.profile._id;
    const assigned = body(
      await sdk.connect.assignGoogleBusinessLocation({
        path: { accountId },
        body: {
          profileId: client,
          selectedLocationId: `locations/${locations[1].id}`,
          googleAccountId: locations[1].accountId,
        },
      }),
    );
    expect(assigned).toEqual({
      message: expect.any(String),
      account: {
        accountId: expect.any(String),
        platform: 'googlebusiness',
        username: 'Extras Shop',
        displayName: 'Extras Shop',
        isActive: true,
        selectedLocationName: 'Extras Shop',
        selectedLocationId: locations[1].id,
      },
    });
    expect(assigned.account.accountId).not.toBe(accountId);
    const listed = (await e.env.request(apiKey, 'GET', `/v1/accounts?profileId=${client}`)).body.accounts;
    expect(listed).toEqual([
      expect.objectContaining({
        _id: assigned.account.accountId,
        platform: 'googlebusiness',
        metadata: expect.objectContaining({ locationId: locations[1].id }),
      }),
    ]);
    // The new account works on its own: its services are the shop's, read from Google with the reused grant.
    expect(
      body(await sdk.gmbservices.getGoogleBusinessServices({ path: { accountId: assigned.account.accountId } }))
        .locationId,
    ).toBe(locations[1].id);

    const again = await zernioError(
      sdk.connect.assignGoogleBusinessLocation({
        path: { accountId },
        body: { profileId: client, selectedLocationId: locations[0].id },
      }),
    );
    expect(again.statusCode).toBe(409);
    expect((again.body as any).code).toBe('googlebusiness_already_connected');
    const other = (await e.env.request(apiKey, 'POST', '/v1/profiles', { name: 'Client C' })).body.profile._id;
    // A location Google does not list for the user: the connect selection's own answer.
    const unknown = await zernioError(
      sdk.connect.assignGoogleBusinessLocation({
        path: { accountId },
        body: { profileId: other, selectedLocationId: '999999' },
      }),
    );
    expect(unknown.statusCode).toBe(404);
    expect((unknown.body as any).code).toBe('location_not_found');
    const wrongOwner = await zernioError(
      sdk.connect.assignGoogleBusinessLocation({
        path: { accountId },
        body: { profileId: other, selectedLocationId: locations[1].id, googleAccountId: 'accounts/1' },
      }),
    );
    expect(wrongOwner.statusCode).toBe(400);
    expect((await e.env.request(apiKey, 'GET', `/v1/accounts?profileId=${other}`)).body.accounts).toEqual([]);
    // A key scoped to the source's profile cannot put the location on a profile it does not see.
    const scoped = (
      await e.env.request(apiKey, 'POST', '/v1/api-keys', { name: 'src', scope: 'profiles', profileIds: [profileId] })
    ).body.apiKey;
    const hidden = await zernioError(
      (await zernio(e.env, scoped.key)).connect.assignGoogleBusinessLocation({
        path: { accountId },
        body: { profileId: other, selectedLocationId: locations[1].id },
      }),
    );
    expect([403, 404]).toContain(hidden.statusCode);
    expect((await e.env.request(apiKey, 'GET', `/v1/accounts?profileId=${other}`)).body.accounts).toEqual([]);
  });
});

describe('Google Business Profile extras: Google failing', () => {
  it('answers Google unavailable on the verification state as 502, and the next call works', async () => {
    await sandboxCall(e.sandbox, 'POST', '/sandbox/googlebusiness/_faults', {
      kind: 'unavailable',
      count: 1,
      op: 'lookup',
    });
    const down = await zernioError(sdk.gmbverifications.getGoogleBusinessVerifications({ path: p() }));
    expect(down.statusCode).toBe(502);
    expect((down.body as any).code).toBe('platform_unavailable');
    expect(body(await sdk.gmbverifications.getGoogleBusinessVerifications({ path: p() })).success).toBe(true);
  });
});

describe('Google Business Profile extras: refusals', () => {
  it("refuses another platform's account with 400, before calling Google", async () => {
    await sandboxCall(e.sandbox, 'POST', '/sandbox/youtube/_oauth/users', {
      id: 'ytOther',
      username: 'ytOther',
      name: 'Other',
    });
    const start = (
      await e.env.request(
        apiKey,
        'GET',
        `/v1/connect/youtube?profileId=${profileId}&redirect_url=${encodeURIComponent(`${e.baseUrl}/health`)}`,
      )
    ).body;
    await followAuthUrl(`${start.authUrl}&login_hint=ytOther`);
    const yt = (await e.env.request(apiKey, 'GET', `/v1/accounts?profileId=${profileId}`)).body.accounts.find(
      (a: any) => a.platform === 'youtube',
    );
    const err = await zernioError(sdk.gmbservices.getGoogleBusinessServices({ path: { accountId: yt._id } }));
    expect(err.statusCode).toBe(400);
    expect((err.body as any).code).toBe('not_googlebusiness_account');
  });

  it('refuses writes with a read-only key (403) and lets it read', async () => {
    const read = (await e.env.request(apiKey, 'POST', '/v1/api-keys', { name: 'ro', permission: 'read' })).body.apiKey;
    const ro = await zernio(e.env, read.key);
    for (const call of [
      () => ro.gmbservices.updateGoogleBusinessServices({ path: p(), body: { serviceItems: [] } }),
      () => ro.gmbverifications.startGoogleBusinessVerification({ path: p(), body: { method: 'ADDRESS' } }),
      () => ro.accounts.replyToGoogleBusinessReview({ path: { accountId, reviewId: 'abc' }, body: { comment: 'x' } }),
      () =>
        ro.gmbplaceactions.updateGoogleBusinessPlaceAction({
          path: p(),
          body: { name: `locations/${locations[0].id}/placeActionLinks/x`, uri: 'https://x.example/' },
        }),
      () =>
        ro.connect.assignGoogleBusinessLocation({
          path: p(),
          body: { profileId, selectedLocationId: locations[1].id },
        }),
    ]) {
      const err = await zernioError(call());
      expect(err.statusCode).toBe(403);
      expect((err.body as any).code).toBe('read_only_key');
    }
    // Reading (including the POSTs that only read) works.
    expect(body(await ro.gmbservices.getGoogleBusinessServices({ path: p() })).success).toBe(true);
    expect(
      body(
        await ro.gmbverifications.fetchGoogleBusinessVerificationOptions({ path: p(), body: { languageCode: 'en' } }),
      ).success,
    ).toBe(true);
    expect(
      body(
        await ro.accounts.batchGetGoogleBusinessReviews({
          path: p(),
          body: { locationNames: [`${locations[0].accountId}/locations/${locations[0].id}`] },
        }),
      ).success,
    ).toBe(true);
    // The services are as they were.
    expect(
      (await google('GET', `/v1/locations/${locations[0].id}?readMask=serviceItems`)).body.serviceItems,
    ).toHaveLength(2);
  });

  it('a key scoped to another profile does not see the account (404)', async () => {
    const other = (await e.env.request(apiKey, 'POST', '/v1/profiles', { name: 'Elsewhere' })).body.profile._id;
    const scoped = (
      await e.env.request(apiKey, 'POST', '/v1/api-keys', { name: 's', scope: 'profiles', profileIds: [other] })
    ).body.apiKey;
    const err = await zernioError(
      (await zernio(e.env, scoped.key)).gmbverifications.getGoogleBusinessVerifications({ path: p() }),
    );
    expect(err.statusCode).toBe(404);
  });
});
