import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grownMetrics } from '../../src/sandbox/metrics.js';
import { externalPin, pinterestSimulator } from '../../src/sandbox/pinterest/index.js';
import { pinStore } from '../../src/sandbox/pinterest/store.js';
import { externalTikTokVideo, tiktokSimulator } from '../../src/sandbox/tiktok/index.js';
import { createNow, createOAuthE2E, followAuthUrl, sdkData, settle, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { analyticsUser, collectAt, expectExternalSync, healthOf, inspected } from '../helpers/analytics-e2e.js';
import { followAuthUrl as followUntil } from '../helpers/oauth-test-platform.js';
import { sandboxCall } from '../helpers/sandbox-env.js';

/*
 * Pinterest and TikTok analytics end to end through the official SDK against the simulators: a published
 * pin's and video's metrics collected on the schedule equal what the simulator reports and change after
 * `_metrics`; the account's followers are read; posts made outside Herald are synced once as external
 * posts; the simulators refuse what the platforms refuse (a metric type outside Pinterest's OpenAPI
 * enums, a token without the read scopes, more than 20 video ids, an unknown video field).
 */

let e: OAuthE2E;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

beforeAll(async () => {
  e = await createOAuthE2E((now) => [pinterestSimulator({ now }), tiktokSimulator({ now })], {
    env: { ANALYTICS_SCHEDULE: '1h,6h,1d,2d,7d' },
  });
});
afterAll(async () => {
  await e?.close();
});

const tenant = (name: string) => analyticsUser(e, name);

/** Pinterest's authorization code flow straight at the simulator: a token with `scope`. */
async function pinToken(login: string, scope: string): Promise<string> {
  const redirect = 'https://herald.example/cb';
  const consent = await fetch(
    `${e.sandbox.url}/sandbox/pinterest/oauth/?${new URLSearchParams({ client_id: 'pin-client', redirect_uri: redirect, response_type: 'code', scope, state: 's', login_hint: login })}`,
    { redirect: 'manual' },
  );
  const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
  const res = await fetch(`${e.sandbox.url}/sandbox/pinterest/v5/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from('pin-client:secret').toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirect }),
  });
  return ((await res.json()) as any).access_token;
}

/** TikTok's Login Kit straight at the simulator (hex PKCE challenge): a token with `scope`. */
async function ttToken(login: string, scope: string): Promise<string> {
  const verifier = 'v'.repeat(50);
  const redirect = 'https://herald.example/cb';
  const q = new URLSearchParams({
    client_key: 'ck',
    response_type: 'code',
    scope,
    redirect_uri: redirect,
    state: 's',
    code_challenge: createHash('sha256').update(verifier).digest('hex'),
    code_challenge_method: 'S256',
    login_hint: login,
  });
  const consent = await fetch(`${e.sandbox.url}/sandbox/tiktok/v2/auth/authorize/?${q}`, { redirect: 'manual' });
  const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
  const res = await fetch(`${e.sandbox.url}/sandbox/tiktok/v2/oauth/token/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_key: 'ck',
      client_secret: 'cs',
      code,
      grant_type: 'authorization_code',
      redirect_uri: redirect,
      code_verifier: verifier,
    }),
  });
  return ((await res.json()) as any).access_token;
}

async function call(platform: string, method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${e.sandbox.url}/sandbox/${platform}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json; charset=UTF-8' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('Pinterest analytics through the official SDK', () => {
  it("collects a pin's analytics and the followers as the simulator reports them, follows _metrics, and syncs pins made outside Herald once", async () => {
    const t = await tenant('Pinterest analytics');
    await sandboxCall(e.sandbox, 'POST', '/sandbox/pinterest/_oauth/users', {
      id: 'pinStats1',
      username: 'pinStats1',
      name: 'Brand pinStats1',
    });
    const start = sdkData(
      await t.sdk.connect.getConnectUrl({
        path: { platform: 'pinterest' },
        query: { profileId: t.profileId, headless: true, redirect_url: 'https://app.example/pin' } as any,
      }),
    );
    const end = await followUntil(`${start.authUrl}&login_hint=pinStats1`, 'https://app.example/');
    const params = new URL(end.url).searchParams;
    const headers = { 'X-Connect-Token': params.get('connect_token')! };
    const query = { profileId: t.profileId, tempToken: params.get('tempToken')! };
    const boards = sdkData(await t.sdk.connect.pinterest.listPinterestBoardsForSelection({ headers, query }))
      .boards as { id: string }[];
    const accountId = sdkData(
      await t.sdk.connect.pinterest.selectPinterestBoard({ headers, body: { ...query, boardId: boards[0].id } } as any),
    ).account.accountId as string;

    const post = await createNow(t.sdk, 'pinterest', accountId, {
      content: 'Pinterest stats pin',
      mediaItems: [{ type: 'image', url: e.mediaUrl('pin-stats.png', 2_000) }],
    });
    await settle(e, 2);
    const [item] = await inspected(e, 'pinterest', 'Pinterest stats pin');
    const publishedAt = Date.parse(item.createdAt);
    const ownerId = pinStore(e.sandbox.state('pinterest')).pins.get(item.id)!.ownerId;
    await sandboxCall(e.sandbox, 'POST', '/sandbox/pinterest/_metrics', {
      postId: ownerId,
      metrics: { followers: 2468 },
    });

    await collectAt(e, publishedAt, HOUR);
    const m = grownMetrics(item.id, publishedAt, e.env.clock.now().getTime());
    let res = sdkData(await t.sdk.analytics.getAnalytics({ query: { postId: post._id } }));
    // Pinterest has no reach or shares; an image pin has no video views.
    expect(res.analytics).toMatchObject({
      impressions: m.impressions,
      saves: m.saves,
      clicks: m.clicks,
      likes: m.likes,
      comments: m.comments,
      reach: 0,
      shares: 0,
      views: 0,
    });
    expect(res.analytics.lastUpdated).toBe(e.env.clock.now().toISOString());

    await sandboxCall(e.sandbox, 'POST', '/sandbox/pinterest/_metrics', {
      postId: item.id,
      metrics: { impressions: 12_000, saves: 340, clicks: 90, likes: 55, comments: 7 },
    });
    await collectAt(e, publishedAt, 6 * HOUR);
    res = sdkData(await t.sdk.analytics.getAnalytics({ query: { postId: post._id } }));
    expect(res.analytics).toMatchObject({ impressions: 12_000, saves: 340, clicks: 90, likes: 55, comments: 7 });
    expect((await healthOf(t.sdk, accountId)).canFetchAnalytics).toBe(true);

    const { externalId, external } = await expectExternalSync(
      e,
      t.sdk,
      'pinterest',
      (at) => externalPin(e.sandbox.state('pinterest'), ownerId, boards[0].id, 'Pinned in the Pinterest app', at),
      post._id,
    );
    expect(external).toMatchObject({
      content: 'Pinned in the Pinterest app',
      platformPostUrl: `https://www.pinterest.com/pin/${externalId}/`,
    });
    // The daily account read, after the followers were set.
    const stats = sdkData(await t.sdk.accounts.getFollowerStats({ query: {} }));
    expect(stats.accounts[0].currentFollowers).toBe(2468);
  });

  it("the simulator holds pin analytics to Pinterest's OpenAPI document, its scopes and its date limits", async () => {
    await sandboxCall(e.sandbox, 'POST', '/sandbox/pinterest/_oauth/users', {
      id: 'pinRules1',
      username: 'pinRules1',
      name: 'Brand pinRules1',
    });
    const token = await pinToken('pinRules1', 'user_accounts:read,boards:read,pins:read');
    const pinId = externalPin(
      e.sandbox.state('pinterest'),
      (await call('pinterest', 'GET', '/v5/user_account', token)).body.id,
      '1',
      'A rules pin',
      e.env.clock.now().getTime() - DAY,
    );
    const today = e.env.clock.now().toISOString().slice(0, 10);
    const analytics = (q: Record<string, string>, tok = token) =>
      call('pinterest', 'GET', `/v5/pins/${pinId}/analytics?${new URLSearchParams(q)}`, tok);

    const ok = await analytics({ start_date: today, end_date: today, metric_types: 'IMPRESSION,SAVE,VIDEO_MRC_VIEW' });
    expect(ok.status).toBe(200);
    // An image pin: no video metric comes back.
    expect(Object.keys(ok.body.all.summary_metrics).sort()).toEqual(['IMPRESSION', 'SAVE']);

    const badMetric = await analytics({ start_date: today, end_date: today, metric_types: 'IMPRESSIONS' });
    expect(badMetric.status).toBe(400);
    expect(badMetric.body).toMatchObject({ code: 1, message: expect.stringContaining("'metric_types.0'") });
    const tooOld = new Date(e.env.clock.now().getTime() - 91 * DAY).toISOString().slice(0, 10);
    expect(await analytics({ start_date: tooOld, end_date: today, metric_types: 'IMPRESSION' })).toMatchObject({
      status: 400,
      body: { code: 400 },
    });
    expect((await analytics({ end_date: today, metric_types: 'IMPRESSION' })).status).toBe(400);

    const writeOnly = await pinToken('pinRules1', 'pins:write');
    expect(
      await analytics({ start_date: today, end_date: today, metric_types: 'IMPRESSION' }, writeOnly),
    ).toMatchObject({ status: 401, body: { code: 3 } });
    expect((await call('pinterest', 'GET', '/v5/pins', writeOnly)).status).toBe(401);
  });
});

describe('TikTok analytics through the official SDK', () => {
  it("collects a video's counts and the followers as the simulator reports them, follows _metrics, and syncs videos posted outside Herald once", async () => {
    const t = await tenant('TikTok analytics');
    const openId = 'open-ttStats1';
    await sandboxCall(e.sandbox, 'POST', '/sandbox/tiktok/_oauth/users', {
      id: openId,
      username: 'ttStats1',
      name: 'Creator ttStats1',
    });
    const start = sdkData(
      await t.sdk.connect.getConnectUrl({
        path: { platform: 'tiktok' },
        query: { profileId: t.profileId, redirect_url: `${e.baseUrl}/health` },
      }),
    );
    expect(new URL(start.authUrl).searchParams.get('scope')!.split(',')).toEqual(
      expect.arrayContaining(['video.list', 'user.info.stats']),
    );
    await followAuthUrl(`${start.authUrl}&login_hint=${openId}`);
    const [account] = sdkData(await t.sdk.accounts.listAccounts({ query: { profileId: t.profileId } })).accounts;
    await sandboxCall(e.sandbox, 'POST', '/sandbox/tiktok/_metrics', {
      postId: openId,
      metrics: { followers: 13_579 },
    });

    const post = await createNow(t.sdk, 'tiktok', account._id, {
      content: 'TikTok stats video',
      mediaItems: [{ type: 'video', url: e.mediaUrl('tt-stats.mp4', 300_000, 'video/mp4') }],
    });
    await settle(e, 4);
    const [item] = await inspected(e, 'tiktok', 'TikTok stats video');
    const publishedAt = Date.parse(item.createdAt);

    await collectAt(e, publishedAt, HOUR);
    const m = grownMetrics(item.id, publishedAt, e.env.clock.now().getTime());
    let res = sdkData(await t.sdk.analytics.getAnalytics({ query: { postId: post._id } }));
    // TikTok's video counts are views, likes, comments and shares; it reports no impressions or reach.
    expect(res.analytics).toMatchObject({
      views: m.views,
      likes: m.likes,
      comments: m.comments,
      shares: m.shares,
      impressions: 0,
      reach: 0,
    });

    await sandboxCall(e.sandbox, 'POST', '/sandbox/tiktok/_metrics', {
      postId: item.id,
      metrics: { views: 50_000, likes: 4_000, comments: 321, shares: 99 },
    });
    await collectAt(e, publishedAt, 6 * HOUR);
    res = sdkData(await t.sdk.analytics.getAnalytics({ query: { postId: post._id } }));
    expect(res.analytics).toMatchObject({ views: 50_000, likes: 4_000, comments: 321, shares: 99 });
    expect((await healthOf(t.sdk, account._id)).canFetchAnalytics).toBe(true);

    const { externalId, external } = await expectExternalSync(
      e,
      t.sdk,
      'tiktok',
      (at) => externalTikTokVideo(e.sandbox.state('tiktok'), openId, 'Posted in the TikTok app', at),
      post._id,
    );
    expect(external).toMatchObject({
      content: 'Posted in the TikTok app',
      platformPostUrl: `https://www.tiktok.com/@ttStats1/video/${externalId}`,
    });
    // The daily account read, after the followers were set.
    const stats = sdkData(await t.sdk.accounts.getFollowerStats({ query: {} }));
    expect(stats.accounts[0].currentFollowers).toBe(13_579);
  });

  it('the simulator refuses what TikTok refuses: a missing scope, more than 20 ids, an unknown field', async () => {
    const openId = 'open-ttRules1';
    await sandboxCall(e.sandbox, 'POST', '/sandbox/tiktok/_oauth/users', {
      id: openId,
      username: 'ttRules1',
      name: 'Creator ttRules1',
    });
    const videoId = externalTikTokVideo(
      e.sandbox.state('tiktok'),
      openId,
      'A rules video',
      e.env.clock.now().getTime() - DAY,
    );
    const token = await ttToken(openId, 'user.info.basic,video.list');
    const query = (body: unknown, fields = 'id,view_count', tok = token) =>
      call('tiktok', 'POST', `/v2/video/query/?fields=${fields}`, tok, body);

    const ok = await query({ filters: { video_ids: [videoId, '7000000000000000001'] } });
    expect(ok.status).toBe(200);
    // Only the caller's own videos come back.
    expect(ok.body.data.videos).toEqual([
      {
        id: videoId,
        view_count: grownMetrics(videoId, e.env.clock.now().getTime() - DAY, e.env.clock.now().getTime()).views,
      },
    ]);

    const ids = Array.from({ length: 21 }, (_, i) => String(7_100_000_000_000_000_000n + BigInt(i)));
    expect(await query({ filters: { video_ids: ids } })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_params' } },
    });
    expect(await query({ filters: { video_ids: [videoId] } }, 'id,impressions')).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_params' } },
    });
    expect(await query({})).toMatchObject({ status: 400, body: { error: { code: 'invalid_params' } } });

    const basic = await ttToken(openId, 'user.info.basic');
    expect(await query({ filters: { video_ids: [videoId] } }, 'id', basic)).toMatchObject({
      status: 401,
      body: { error: { code: 'scope_not_authorized' } },
    });
    expect(await call('tiktok', 'GET', '/v2/user/info/?fields=open_id,follower_count', token)).toMatchObject({
      status: 400,
      body: { error: { code: 'scope_permission_missed' } },
    });
    expect(await call('tiktok', 'POST', '/v2/video/list/?fields=id', token, { max_count: 21 })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_params' } },
    });
    const listed = await call('tiktok', 'POST', '/v2/video/list/?fields=id,create_time', token, { max_count: 20 });
    expect(listed.body.data).toMatchObject({
      videos: [{ id: videoId, create_time: expect.any(Number) }],
      has_more: false,
    });
  });
});
