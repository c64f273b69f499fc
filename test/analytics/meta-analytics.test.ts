import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { facebookSimulator } from '../../src/sandbox/facebook/index.js';
import { externalPagePost } from '../../src/sandbox/facebook/insights.js';
import { edgeSpec, paramsProblem } from '../../src/sandbox/graph/spec.js';
import { instagramSimulator } from '../../src/sandbox/instagram/index.js';
import { externalIgMedia } from '../../src/sandbox/instagram/insights.js';
import { grownMetrics } from '../../src/sandbox/metrics.js';
import { threadsSimulator } from '../../src/sandbox/threads/index.js';
import { externalThread } from '../../src/sandbox/threads/insights.js';
import { thStore } from '../../src/sandbox/threads/store.js';
import { solidImage } from '../fixtures/media.js';
import {
  createNow,
  createOAuthE2E,
  followAuthUrl,
  sdkData,
  settle,
  uploadToHerald,
  type OAuthE2E,
} from '../helpers/oauth-e2e.js';
import { analyticsUser, collectAt, expectExternalSync, inspected } from '../helpers/analytics-e2e.js';
import { followAuthUrl as followUntil } from '../helpers/oauth-test-platform.js';
import { sandboxCall } from '../helpers/sandbox-env.js';

/*
 * Facebook, Instagram and Threads analytics end to end through the official SDK against the simulators:
 * a published post's insights collected on the schedule equal what the simulator reports and change after
 * `_metrics`; the account's followers are read; a metric name outside Meta's lists is Graph's (#100); a
 * post made outside Herald is synced once as an external post, and Herald's own is never doubled.
 */

let e: OAuthE2E;
const HOUR = 3_600_000;

beforeAll(async () => {
  e = await createOAuthE2E(
    (now) => [facebookSimulator({ now }), instagramSimulator({ now }), threadsSimulator({ now })],
    { env: { ANALYTICS_SCHEDULE: '1h,6h,1d,2d,7d' } },
  );
});
afterAll(async () => {
  await e?.close();
});

const tenant = (name: string) => analyticsUser(e, name);

/** Facebook Login straight at a Graph simulator: the token of `login`'s first Page (which acts for its Instagram account too). */
async function pageToken(platform: 'facebook' | 'instagram', login: string): Promise<string> {
  const g = `${e.sandbox.url}/sandbox/${platform}/v24.0`;
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

const graphGet = async (platform: string, path: string, token: string) => {
  const res = await fetch(`${e.sandbox.url}/sandbox/${platform}/v24.0/${path}`, {
    headers: { authorization: `OAuth ${token}` },
  });
  return { status: res.status, body: (await res.json()) as any };
};

describe('Meta analytics through the official SDK', () => {
  it('Facebook: post insights and counts, the Page followers, an unknown metric refused, external Page posts synced once', async () => {
    const t = await tenant('FB analytics');
    const start = sdkData(
      await t.sdk.connect.getConnectUrl({
        path: { platform: 'facebook' },
        query: { profileId: t.profileId, headless: true, redirect_url: 'https://app.example/fb' } as any,
      }),
    );
    const end = await followUntil(`${start.authUrl}&login_hint=fbStats1`, 'https://app.example/');
    const params = new URL(end.url).searchParams;
    const headers = { 'X-Connect-Token': params.get('connect_token')! };
    const query = { profileId: t.profileId, tempToken: params.get('tempToken')! };
    const pages = sdkData(await t.sdk.connect.facebook.listFacebookPages({ headers, query })).pages as { id: string }[];
    const accountId = sdkData(
      await t.sdk.connect.facebook.selectFacebookPage({ headers, body: { ...query, pageId: pages[0].id } } as any),
    ).account.accountId;
    const post = await createNow(t.sdk, 'facebook', accountId, { content: 'FB stats post' });
    await settle(e, 2);
    const [item] = await inspected(e, 'facebook', 'FB stats post');
    const publishedAt = Date.parse(item.createdAt);

    await collectAt(e, publishedAt, HOUR);
    const m = grownMetrics(item.id, publishedAt, e.env.clock.now().getTime());
    let res = sdkData(await t.sdk.analytics.getAnalytics({ query: { postId: post._id } }));
    expect(res.analytics).toMatchObject({
      impressions: m.impressions,
      reach: m.reach,
      clicks: m.clicks,
      likes: m.likes,
      comments: m.comments,
      shares: m.shares,
      views: 0,
      saves: 0,
    });

    await sandboxCall(e.sandbox, 'POST', '/sandbox/facebook/_metrics', {
      postId: item.id,
      metrics: { impressions: 9000, reach: 7000, likes: 40, comments: 5, shares: 3, clicks: 77 },
    });
    await sandboxCall(e.sandbox, 'POST', '/sandbox/facebook/_metrics', {
      postId: pages[0].id,
      metrics: { followers: 4321 },
    });
    await collectAt(e, publishedAt, 6 * HOUR);
    res = sdkData(await t.sdk.analytics.getAnalytics({ query: { postId: post._id } }));
    expect(res.analytics).toMatchObject({
      impressions: 9000,
      reach: 7000,
      likes: 40,
      comments: 5,
      shares: 3,
      clicks: 77,
    });
    expect(res.isExternal).toBe(false);

    // Meta's specs have no enum of Page post metrics: the simulator holds them to the documented list.
    const token = await pageToken('facebook', 'fbStats1');
    const bad = await graphGet('facebook', `${item.id}/insights?metric=post_impressions,post_engaged_users`, token);
    expect(bad).toMatchObject({
      status: 400,
      body: { error: { code: 100, message: '(#100) The value must be a valid insights metric' } },
    });

    await expectExternalSync(
      e,
      t.sdk,
      'facebook',
      (at) => externalPagePost(e.sandbox.state('facebook'), pages[0].id, 'Posted in Meta Business Suite', at),
      post._id,
    );
    const stats = sdkData(await t.sdk.accounts.getFollowerStats({ query: {} }));
    expect(stats.accounts[0].currentFollowers).toBe(4321);
  });

  it("Instagram: media insights, followers, metric names held to the enum of Meta's specs, external media synced once", async () => {
    const t = await tenant('IG analytics');
    const start = sdkData(
      await t.sdk.connect.getConnectUrl({ path: { platform: 'instagram' }, query: { profileId: t.profileId } }),
    );
    const shown = await fetch(`${start.authUrl}&login_hint=igStats1`);
    const html = await shown.text();
    const tempToken = /name="tempToken" value="([^"]+)"/.exec(html)![1];
    const igUserId = /name="destinationId" value="([^"]+)"/.exec(html)![1];
    const chosen = await fetch(new URL('choose', shown.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ tempToken, destinationId: igUserId }),
    });
    expect(chosen.status).toBe(200);
    const [account] = sdkData(await t.sdk.accounts.listAccounts({ query: { profileId: t.profileId } })).accounts;
    const url = await uploadToHerald(t.sdk, 'ig-stats.jpg', await solidImage(800, 800, 'jpeg'), 'image/jpeg');
    const post = await createNow(t.sdk, 'instagram', account._id, {
      content: 'IG stats post',
      mediaItems: [{ type: 'image', url }],
    });
    await settle(e, 2);
    const [item] = await inspected(e, 'instagram', 'IG stats post');
    const publishedAt = Date.parse(item.createdAt);

    await collectAt(e, publishedAt, HOUR);
    const m = grownMetrics(item.id, publishedAt, e.env.clock.now().getTime());
    let res = sdkData(await t.sdk.analytics.getAnalytics({ query: { postId: post._id } }));
    expect(res.analytics).toMatchObject({
      views: m.views,
      impressions: m.views,
      reach: m.reach,
      likes: m.likes,
      comments: m.comments,
      shares: m.shares,
      saves: m.saves,
      clicks: 0,
    });

    await sandboxCall(e.sandbox, 'POST', '/sandbox/instagram/_metrics', {
      postId: item.id,
      metrics: { views: 2500, reach: 1800, likes: 90, comments: 9, shares: 4, saves: 11 },
    });
    await collectAt(e, publishedAt, 6 * HOUR);
    res = sdkData(await t.sdk.analytics.getAnalytics({ query: { postId: post._id } }));
    expect(res.analytics).toMatchObject({
      views: 2500,
      impressions: 2500,
      reach: 1800,
      likes: 90,
      comments: 9,
      shares: 4,
      saves: 11,
    });

    // The enum of Meta's specs (shadowigmediainsights_metric_enum_param) says `saved`, not `saves`.
    const token = await pageToken('instagram', 'igStats1');
    const bad = await graphGet('instagram', `${item.id}/insights?metric=reach,saves`, token);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 100 });
    expect(bad.body.error.message).toMatch(/^\(#100\) Param metric must be one of \{.*saved.*\} - got "saves"\.$/);
    const good = await graphGet('instagram', `${item.id}/insights?metric=reach,saved`, token);
    expect(good.body.data.map((d: any) => [d.name, d.values[0].value])).toEqual([
      ['reach', 1800],
      ['saved', 11],
    ]);

    await expectExternalSync(
      e,
      t.sdk,
      'instagram',
      (at) => externalIgMedia(e.sandbox.state('instagram'), igUserId, 'Posted in the Instagram app', at),
      post._id,
    );
    const stats = sdkData(await t.sdk.accounts.getFollowerStats({ query: {} }));
    expect(stats.accounts[0].currentFollowers).toBeGreaterThan(0);
  });

  it("Threads: thread insights, followers_count, metric names held to the spec's enums, external threads synced once", async () => {
    const t = await tenant('Threads analytics');
    await sandboxCall(e.sandbox, 'POST', '/sandbox/threads/_oauth/users', {
      id: 'thStats1',
      username: 'thstats1',
      name: 'Threads thStats1',
    });
    const start = sdkData(
      await t.sdk.connect.getConnectUrl({
        path: { platform: 'threads' },
        query: { profileId: t.profileId, redirect_url: `${e.baseUrl}/health` },
      }),
    );
    await followAuthUrl(`${start.authUrl}&login_hint=thStats1`);
    const [account] = sdkData(await t.sdk.accounts.listAccounts({ query: { profileId: t.profileId } })).accounts;
    const threadsUserId = [...thStore(e.sandbox.state('threads')).users.values()].find(
      (u) => u.login === 'thStats1',
    )!.id;
    const post = await createNow(t.sdk, 'threads', account._id, { content: 'Threads stats post' });
    await settle(e, 2);
    const [item] = await inspected(e, 'threads', 'Threads stats post');
    const publishedAt = Date.parse(item.createdAt);

    await collectAt(e, publishedAt, HOUR);
    const m = grownMetrics(item.id, publishedAt, e.env.clock.now().getTime());
    let res = sdkData(await t.sdk.analytics.getAnalytics({ query: { postId: post._id } }));
    expect(res.analytics).toMatchObject({
      views: m.views,
      likes: m.likes,
      comments: m.comments,
      shares: m.shares,
      impressions: 0,
    });

    await sandboxCall(e.sandbox, 'POST', '/sandbox/threads/_metrics', {
      postId: item.id,
      metrics: { views: 640, likes: 32, comments: 8, shares: 2 },
    });
    await sandboxCall(e.sandbox, 'POST', '/sandbox/threads/_metrics', {
      postId: threadsUserId,
      metrics: { followers: 777 },
    });
    await collectAt(e, publishedAt, 6 * HOUR);
    res = sdkData(await t.sdk.analytics.getAnalytics({ query: { postId: post._id } }));
    expect(res.analytics).toMatchObject({ views: 640, likes: 32, comments: 8, shares: 2 });

    // The spec's enums (from Meta's Postman collection): `impressions` is no Threads metric.
    expect(
      paramsProblem(
        edgeSpec('ThreadsMedia', 'GET', 'insights')!,
        { metric: 'views,impressions' },
        'GET /ThreadsMedia/insights',
      ),
    ).toBe('(#100) Param metric must be one of {views, likes, replies, reposts, quotes, shares} - got "impressions".');
    expect(
      paramsProblem(
        edgeSpec('ThreadsUser', 'GET', 'threads_insights')!,
        { metric: 'followers_count' },
        'GET /ThreadsUser/threads_insights',
      ),
    ).toBeNull();

    await expectExternalSync(
      e,
      t.sdk,
      'threads',
      (at) => externalThread(e.sandbox.state('threads'), threadsUserId, 'Posted in the Threads app', at),
      post._id,
    );
    const stats = sdkData(await t.sdk.accounts.getFollowerStats({ query: {} }));
    expect(stats.accounts[0].currentFollowers).toBe(777);
  });
});
