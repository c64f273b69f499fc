import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleBusinessSimulator } from '../../src/sandbox/googlebusiness/index.js';
import { locationDailyValue } from '../../src/sandbox/googlebusiness/performance.js';
import { grownMetrics } from '../../src/sandbox/metrics.js';
import { redditSimulator } from '../../src/sandbox/reddit/index.js';
import { externalSubmission } from '../../src/sandbox/reddit/info.js';
import { snapchatSimulator } from '../../src/sandbox/snapchat/index.js';
import { createNow, createOAuthE2E, followAuthUrl, sdkData, settle, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { analyticsTenant, collectAt, healthOf } from '../helpers/analytics-e2e.js';
import { followAuthUrl as followUntil } from '../helpers/oauth-test-platform.js';
import { sandboxCall } from '../helpers/sandbox-env.js';

/*
 * Reddit, Snapchat and Google Business analytics end to end through the official SDK against the
 * simulators, each limited to what its platform's API offers: collected values equal what the simulator
 * reports and change after `_metrics`; followers are read where the platform has them; posts made
 * outside Herald are imported once where the platform lists an account's posts. Google Business local
 * posts have no insights: its location metrics are read live through Herald's gmb-performance route (not
 * in the hosted contract, so called over HTTP), which the simulator answers from the Performance API's
 * discovery document.
 */

let e: OAuthE2E;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

beforeAll(async () => {
  e = await createOAuthE2E(
    (now) => [redditSimulator({ now }), snapchatSimulator({ now }), googleBusinessSimulator({ now })],
    { env: { ANALYTICS_SCHEDULE: '1h,6h,1d,2d,7d' } },
  );
});
afterAll(async () => {
  await e?.close();
});

const analyticsOf = async (sdk: any, postId: string) =>
  sdkData(await sdk.analytics.getAnalytics({ query: { postId } })).analytics;
const followersOf = async (sdk: any, accountId: string) =>
  sdkData(await sdk.accounts.getFollowerStats({ query: {} })).accounts.find(
    (a: any) => a._id === accountId || a.accountId === accountId,
  )?.currentFollowers;
describe('Reddit analytics through the official SDK', () => {
  it('reads upvotes, comments and views from /api/info and the profile followers, follows _metrics, and imports posts made on Reddit once', async () => {
    const user = { id: 'rdStats1', username: 'rdStats1' };
    const t = await analyticsTenant(e, 'reddit', user);
    await sandboxCall(e.sandbox, 'POST', '/sandbox/reddit/_metrics', { postId: user.id, metrics: { followers: 321 } });
    const post = await createNow(
      t.sdk,
      'reddit',
      t.account._id,
      { content: 'Counting on Reddit' },
      { subreddit: 'test', title: 'Reddit stats post' },
    );
    await settle(e, 2);
    const [item] = ((await sandboxCall(e.sandbox, 'GET', '/sandbox/reddit/_inspect')).posts as any[]).filter(
      (p) => p.extra?.title === 'Reddit stats post',
    );
    const publishedAt = Date.parse(item.createdAt);

    await collectAt(e, publishedAt, HOUR);
    const m = grownMetrics(item.id, publishedAt, e.env.clock.now().getTime());
    expect(await analyticsOf(t.sdk, post._id)).toMatchObject({
      likes: m.likes,
      comments: m.comments,
      views: m.views,
      // Reddit has no counts of these for a post.
      impressions: 0,
      reach: 0,
      shares: 0,
      saves: 0,
      clicks: 0,
      lastUpdated: e.env.clock.now().toISOString(),
    });
    expect(await followersOf(t.sdk, t.account._id)).toBe(321);

    await sandboxCall(e.sandbox, 'POST', '/sandbox/reddit/_metrics', {
      postId: item.id,
      metrics: { likes: 420, comments: 37, views: 9001 },
    });
    await collectAt(e, publishedAt, 6 * HOUR);
    expect(await analyticsOf(t.sdk, post._id)).toMatchObject({ likes: 420, comments: 37, views: 9001 });
    expect(await healthOf(t.sdk, t.account._id)).toMatchObject({ canFetchAnalytics: true });

    // A post made on Reddit itself is imported once by the daily sync; Herald's own is never doubled.
    externalSubmission(e.sandbox.state('reddit'), user, 'Posted on reddit.com', e.env.clock.now().getTime() - 2 * HOUR);
    for (const day of [1, 2]) {
      e.env.clock.set(new Date(e.env.clock.now().getTime() + day * DAY));
      await e.runner.drain();
    }
    const external = sdkData(await t.sdk.analytics.getAnalytics({ query: { source: 'external', platform: 'reddit' } }));
    expect(external.posts).toHaveLength(1);
    expect(external.posts[0]).toMatchObject({ isExternal: true, status: 'published', platform: 'reddit' });
    expect(external.posts[0].analytics.lastUpdated).not.toBeNull();
    const all = sdkData(await t.sdk.analytics.getAnalytics({ query: { source: 'all', platform: 'reddit' } }));
    expect(all.posts).toHaveLength(2);
  });

  it('answers /api/info as Reddit does: a token without `read` is refused, more than 100 fullnames is a 400', async () => {
    const base = `${e.sandbox.url}/sandbox/reddit`;
    const ua = 'server:herald-test:1.0 (by /u/herald_app)';
    const redirect = 'https://herald.example/cb';
    await sandboxCall(e.sandbox, 'POST', '/sandbox/reddit/_oauth/users', {
      id: 'rdScope1',
      username: 'rdScope1',
      name: 'rdScope1',
    });
    const token = async (scope: string) => {
      const consent = await fetch(
        `${base}/api/v1/authorize?client_id=c&response_type=code&state=s&redirect_uri=${encodeURIComponent(redirect)}&duration=permanent&scope=${scope}&login_hint=rdScope1`,
        { redirect: 'manual' },
      );
      const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
      const res = await fetch(`${base}/api/v1/access_token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from('c:s').toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          'user-agent': ua,
        },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirect }),
      });
      return ((await res.json()) as any).access_token as string;
    };
    const info = (tok: string, ids: string) =>
      fetch(`${base}/api/info?id=${ids}`, { headers: { authorization: `bearer ${tok}`, 'user-agent': ua } });

    const identityOnly = await info(await token('identity'), 't3_abc');
    expect(identityOnly.status).toBe(403);
    expect(identityOnly.headers.get('www-authenticate')).toContain('insufficient_scope');
    const reader = await token('identity%20read');
    const tooMany = await info(reader, Array.from({ length: 101 }, (_, i) => `t3_${i.toString(36)}`).join(','));
    expect(tooMany.status).toBe(400);
    expect(await tooMany.json()).toMatchObject({ error: 400, reason: 'TOO_MANY_THING_IDS' });
    const none = await info(reader, 't3_zzzzzz');
    expect(((await none.json()) as any).data.children).toEqual([]);
  });
});

describe('Snapchat analytics through the official SDK', () => {
  /** Snap's consent and token exchange straight at the simulator: a token of `login`. */
  async function snapToken(login: string): Promise<string> {
    const base = `${e.sandbox.url}/sandbox/snapchat`;
    const redirect = 'https://herald.example/cb';
    const consent = await fetch(
      `${base}/login/oauth2/authorize?client_id=c&redirect_uri=${encodeURIComponent(redirect)}&response_type=code&scope=snapchat-profile-api&state=s&login_hint=${login}`,
      { redirect: 'manual' },
    );
    const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
    const res = await fetch(`${base}/login/oauth2/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirect,
        client_id: 'c',
        client_secret: 's',
      }),
    });
    return ((await res.json()) as any).access_token;
  }

  it("reads a story's lifetime stats and the public profile's subscribers as the simulator reports them, and again after _metrics", async () => {
    const login = 'snapStats1';
    const { apiKey } = await e.env.createUser({ addons: ['analytics'] });
    const sdk = await e.env.sdk(apiKey);
    const profileId = sdkData(await sdk.profiles.createProfile({ body: { name: 'Snapchat analytics' } })).profile._id;
    await sandboxCall(e.sandbox, 'POST', '/sandbox/snapchat/_oauth/users', {
      id: login,
      username: login,
      name: `Brand ${login}`,
    });
    const start = sdkData(
      await sdk.connect.getConnectUrl({
        path: { platform: 'snapchat' },
        query: { profileId, headless: true, redirect_url: `${e.baseUrl}/health` } as any,
      }),
    );
    const params = Object.fromEntries((await followAuthUrl(`${start.authUrl}&login_hint=${login}`)).searchParams);
    const headers = { 'X-Connect-Token': params.connect_token };
    const profiles = sdkData(
      await sdk.connect.snapchat.listSnapchatProfiles({
        headers,
        query: { profileId, tempToken: params.tempToken },
      } as any),
    ).publicProfiles;
    await sdk.connect.snapchat.selectSnapchatProfile({
      headers,
      body: {
        profileId,
        selectedPublicProfile: profiles[0],
        tempToken: params.tempToken,
        userProfile: JSON.parse(params.userProfile),
      },
    } as any);
    const [account] = sdkData(await sdk.accounts.listAccounts({ query: { profileId } })).accounts;
    await sandboxCall(e.sandbox, 'POST', '/sandbox/snapchat/_metrics', {
      postId: profiles[0].id,
      metrics: { followers: 23456 },
    });

    const post = await createNow(
      sdk,
      'snapchat',
      account._id,
      { content: 'Snap stats', mediaItems: [{ type: 'image', url: e.mediaUrl('snap-stats.png', 20_000) }] },
      { contentType: 'story' },
    );
    await settle(e, 4);
    const [item] = ((await sandboxCall(e.sandbox, 'GET', '/sandbox/snapchat/_inspect')).posts as any[]).filter(
      (p) => p.destination === profiles[0].id,
    );
    expect(item).toBeDefined();
    const publishedAt = Date.parse(item.createdAt);

    await collectAt(e, publishedAt, HOUR);
    const m = grownMetrics(item.id, publishedAt, e.env.clock.now().getTime());
    // A story's screenshots have no name among Herald's metrics; Snap reports no impressions or clicks for it.
    expect(await analyticsOf(sdk, post._id)).toMatchObject({
      views: m.views,
      reach: m.reach,
      shares: m.shares,
      comments: m.comments,
      likes: 0,
      saves: 0,
      impressions: 0,
      clicks: 0,
    });
    expect(await followersOf(sdk, account._id)).toBe(23456);

    await sandboxCall(e.sandbox, 'POST', '/sandbox/snapchat/_metrics', {
      postId: item.id,
      metrics: { views: 777, reach: 555, shares: 12, comments: 4 },
    });
    await collectAt(e, publishedAt, 6 * HOUR);
    expect(await analyticsOf(sdk, post._id)).toMatchObject({ views: 777, reach: 555, shares: 12, comments: 4 });
    expect(await healthOf(sdk, account._id)).toMatchObject({ canFetchAnalytics: true });

    // The stats endpoint checks its parameters as Snap's Metrics page says.
    const token = await snapToken(login);
    const stats = (query: string, profile = profiles[0].id) =>
      fetch(`${e.sandbox.url}/sandbox/snapchat/v1/public_profiles/${profile}/stats?${query}`, {
        headers: { authorization: `Bearer ${token}` },
      });
    const wrongField = await stats('assetType=STORY&fields=VIEWS,FAVORITES');
    expect(wrongField.status).toBe(400);
    expect(await wrongField.json()).toMatchObject({
      request_status: 'ERROR',
      debug_message: expect.stringContaining('FAVORITES'),
    });
    expect((await stats('assetType=STORY&granularity=DAY')).status).toBe(400);
    expect((await stats('assetType=POSTS')).status).toBe(400);
    const day = new Date(publishedAt).toISOString().slice(0, 10);
    const next = new Date(publishedAt + DAY).toISOString().slice(0, 10);
    const total = (await (
      await stats(`assetType=STORY&fields=VIEWS&granularity=TOTAL&startTime=${day}T00:00:00&endTime=${next}T00:00:00`)
    ).json()) as any;
    expect(total.assets.find((a: any) => a.asset_id === item.id).timeseries).toHaveLength(1);
    expect((await stats('assetType=PROFILE', '00000000-0000-4000-a000-000000000000')).status).toBe(403);
  });
});

describe('Google Business analytics through the official SDK', () => {
  it("reads a location's daily performance metrics live (local posts have no insights: nothing is collected for them)", async () => {
    const login = 'gbpStats1';
    const { apiKey } = await e.env.createUser({ addons: ['analytics'] });
    const sdk = await e.env.sdk(apiKey);
    const profileId = sdkData(await sdk.profiles.createProfile({ body: { name: 'GBP analytics' } })).profile._id;
    await sandboxCall(e.sandbox, 'POST', '/sandbox/googlebusiness/_oauth/users', {
      id: login,
      username: login,
      name: `Biz ${login}`,
    });
    const app = 'https://app.example/gbp';
    const start = sdkData(
      await sdk.connect.getConnectUrl({
        path: { platform: 'googlebusiness' },
        query: { profileId, redirect_url: app, headless: true } as any,
      }),
    );
    const pendingDataToken = new URL(
      (await followUntil(`${start.authUrl}&login_hint=${login}`, app)).url,
    ).searchParams.get('pendingDataToken')!;
    const locations = sdkData(
      await sdk.connect.googleBusiness.listGoogleBusinessLocations({ query: { profileId, pendingDataToken } as any }),
    ).locations;
    const accountId = sdkData(
      await sdk.connect.googleBusiness.selectGoogleBusinessLocation({
        body: { profileId, locationId: locations[0].id, pendingDataToken } as any,
      }),
    ).account.accountId;

    const get = (query: string, key = apiKey) =>
      fetch(`${e.baseUrl}/v1/accounts/${accountId}/gmb-performance?${query}`, {
        headers: { authorization: `Bearer ${key}` },
      });
    const today = e.env.clock.now();
    const day = (n: number) => new Date(today.getTime() - n * DAY).toISOString().slice(0, 10);
    const res = await get(
      `startDate=${day(6)}&endDate=${day(0)}&metrics=CALL_CLICKS,WEBSITE_CLICKS,BUSINESS_IMPRESSIONS_MOBILE_MAPS`,
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({
      success: true,
      platform: 'googlebusiness',
      locationId: `locations/${locations[0].id}`,
      dateRange: { startDate: day(6), endDate: day(0) },
    });
    expect(Object.keys(body.metrics).sort()).toEqual([
      'BUSINESS_IMPRESSIONS_MOBILE_MAPS',
      'CALL_CLICKS',
      'WEBSITE_CLICKS',
    ]);
    for (const [metric, series] of Object.entries<any>(body.metrics)) {
      const expected = [6, 5, 4, 3, 2, 1, 0].map((n) => ({
        date: day(n),
        value: locationDailyValue(String(locations[0].id), metric, day(n)),
      }));
      expect(series.daily).toEqual(expected);
      expect(series.total).toBe(expected.reduce((s, d) => s + d.value, 0));
    }

    // Bad input is a 400 before Google is called.
    expect((await get('metrics=CALL_CLICKS,LIKES')).status).toBe(400);
    expect(await (await get('startDate=2026-02-30')).json()).toMatchObject({ code: 'invalid_date_format' });
    for (const bad of ['startDate=2026-13-45', 'endDate=2026-00-10', 'startDate=9999-99-99']) {
      const res = await get(bad);
      expect([res.status, ((await res.json()) as any).code]).toEqual([400, 'invalid_date_format']);
    }
    expect((await get(`startDate=${day(0)}&endDate=${day(3)}`)).status).toBe(400);
    // Without the add-on it is a 402 before anything; another tenant's account is not found.
    expect((await get('', (await e.env.createUser()).apiKey)).status).toBe(402);
    expect((await get('', (await e.env.createUser({ addons: ['analytics'] })).apiKey)).status).toBe(404);

    // Google Business declares no post analytics: health says analytics cannot be fetched for it.
    const health = sdkData(await sdk.accounts.getAllAccountsHealth({ query: {} })).accounts.find(
      (a: any) => a.accountId === accountId,
    );
    expect(health.canFetchAnalytics).toBe(false);
  });

  it('holds fetchMultiDailyMetricsTimeSeries to its discovery document', async () => {
    await sandboxCall(e.sandbox, 'POST', '/sandbox/googlebusiness/_oauth/users', {
      id: 'gbpPerf2',
      username: 'gbpPerf2',
      name: 'Biz gbpPerf2',
    });
    const base = `${e.sandbox.url}/sandbox/googlebusiness`;
    const redirect = 'https://herald.example/cb';
    const token = async (scope: string) => {
      const consent = await fetch(
        `${base}/o/oauth2/v2/auth?client_id=c&redirect_uri=${encodeURIComponent(redirect)}&response_type=code&scope=${encodeURIComponent(scope)}&access_type=offline&state=s&login_hint=gbpPerf2`,
        { redirect: 'manual' },
      );
      const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
      const res = await fetch(`${base}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirect,
          client_id: 'c',
          client_secret: 's',
        }),
      });
      return ((await res.json()) as any).access_token as string;
    };
    const manage = await token('https://www.googleapis.com/auth/business.manage');
    const accounts = (await (
      await fetch(`${base}/v1/accounts`, { headers: { authorization: `Bearer ${manage}` } })
    ).json()) as any;
    const locs = (await (
      await fetch(`${base}/v1/${accounts.accounts[0].name}/locations?readMask=name`, {
        headers: { authorization: `Bearer ${manage}` },
      })
    ).json()) as any;
    const loc = locs.locations[0].name as string;
    const range =
      'daily_range.start_date.year=2026&daily_range.start_date.month=1&daily_range.start_date.day=1&daily_range.end_date.year=2026&daily_range.end_date.month=1&daily_range.end_date.day=3';
    const call = (query: string, tok = manage) =>
      fetch(`${base}/v1/${loc}:fetchMultiDailyMetricsTimeSeries?${query}`, {
        headers: { authorization: `Bearer ${tok}` },
      });

    const ok = (await (await call(`dailyMetrics=CALL_CLICKS&dailyMetrics=WEBSITE_CLICKS&${range}`)).json()) as any;
    expect(ok.multiDailyMetricTimeSeries[0].dailyMetricTimeSeries.map((s: any) => s.dailyMetric)).toEqual([
      'CALL_CLICKS',
      'WEBSITE_CLICKS',
    ]);
    expect(
      ok.multiDailyMetricTimeSeries[0].dailyMetricTimeSeries[0].timeSeries.datedValues.map((v: any) => v.date),
    ).toEqual([1, 2, 3].map((day) => ({ year: 2026, month: 1, day })));
    const enumBad = await call(`dailyMetrics=POST_VIEWS&${range}`);
    expect(enumBad.status).toBe(400);
    expect(await enumBad.json()).toMatchObject({
      error: { status: 'INVALID_ARGUMENT', message: expect.stringContaining('POST_VIEWS') },
    });
    expect((await call(range)).status).toBe(400);
    expect((await call(`dailyMetrics=CALL_CLICKS&${range}&granularity=DAY`)).status).toBe(400);
    expect(
      (await call(`dailyMetrics=CALL_CLICKS&${range.replace('end_date.month=1', 'end_date.month=13')}`)).status,
    ).toBe(400);
    const scopeless = await call(`dailyMetrics=CALL_CLICKS&${range}`, await token('openid'));
    expect(scopeless.status).toBe(403);
  });
});
