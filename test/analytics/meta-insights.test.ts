import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { facebookSimulator } from '../../src/sandbox/facebook/index.js';
import { approximateEarnings, earningsMicro, pageInsightValue } from '../../src/sandbox/facebook/page-insights.js';
import { instagramSimulator } from '../../src/sandbox/instagram/index.js';
import { analyticsUser, inspected } from '../helpers/analytics-e2e.js';
import { followAuthUrl } from '../helpers/oauth-test-platform.js';
import { createNow, createOAuthE2E, sdkData, settle, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { body, zernio, zernioError } from '../helpers/zernio.js';

/*
 * Facebook Page insights, Facebook post earnings and Instagram follower history through @zernio/node
 * against the Meta simulators: the Page's numbers are what the simulator's Page insights edge reports (a
 * pure function of Page, metric and day), money keeps Meta's unit and currency, follower history and
 * followers_gained/lost are Herald's daily follower reads, and what Graph refuses the simulator refuses.
 */

let e: OAuthE2E;
let fb: Awaited<ReturnType<typeof analyticsUser>>;
let ig: Awaited<ReturnType<typeof analyticsUser>>;
let fbAccountId: string;
let pageId: string;
let igAccountId: string;
let igUserId: string;
const DAY = 86_400_000;
const START = '2026-03-10T12:00:00Z';

/** Herald's daily account read on each of the next `followers.length` days, with the follower counts set first. */
async function dailyReads(platform: string, accountPlatformId: string, followers: number[]) {
  for (const n of followers) {
    await sandboxCall(e.sandbox, 'POST', `/sandbox/${platform}/_metrics`, {
      postId: accountPlatformId,
      metrics: { followers: n },
    });
    e.env.clock.set(new Date(e.env.clock.now().getTime() + DAY));
    await e.runner.drain();
  }
}

beforeAll(async () => {
  e = await createOAuthE2E((now) => [facebookSimulator({ now }), instagramSimulator({ now })], {
    now: START,
    env: {
      ANALYTICS_SCHEDULE: '1h,1d',
      FACEBOOK_SCOPES:
        'pages_show_list,pages_manage_posts,pages_read_engagement,pages_manage_engagement,business_management,read_insights',
    },
  });
  fb = await analyticsUser(e, 'FB insights');
  const start = sdkData(
    await fb.sdk.connect.getConnectUrl({
      path: { platform: 'facebook' },
      query: { profileId: fb.profileId, headless: true, redirect_url: 'https://app.example/fb' } as any,
    }),
  );
  const end = await followAuthUrl(`${start.authUrl}&login_hint=fbInsights1`, 'https://app.example/');
  const params = new URL(end.url).searchParams;
  const headers = { 'X-Connect-Token': params.get('connect_token')! };
  const query = { profileId: fb.profileId, tempToken: params.get('tempToken')! };
  const pages = sdkData(await fb.sdk.connect.facebook.listFacebookPages({ headers, query })).pages as { id: string }[];
  pageId = pages[0].id;
  fbAccountId = sdkData(
    await fb.sdk.connect.facebook.selectFacebookPage({ headers, body: { ...query, pageId } } as any),
  ).account.accountId;

  ig = await analyticsUser(e, 'IG history');
  const igStart = sdkData(
    await ig.sdk.connect.getConnectUrl({ path: { platform: 'instagram' }, query: { profileId: ig.profileId } }),
  );
  const shown = await fetch(`${igStart.authUrl}&login_hint=igHistory1`);
  const html = await shown.text();
  const tempToken = /name="tempToken" value="([^"]+)"/.exec(html)![1];
  igUserId = /name="destinationId" value="([^"]+)"/.exec(html)![1];
  await fetch(new URL('choose', shown.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ tempToken, destinationId: igUserId }),
  });
  igAccountId = sdkData(await ig.sdk.accounts.listAccounts({ query: { profileId: ig.profileId } })).accounts[0]._id;
});
afterAll(async () => e?.close());

const days = (from: string, to: string) => {
  const out: string[] = [];
  for (let d = Date.parse(`${from}T00:00:00Z`); d <= Date.parse(`${to}T00:00:00Z`); d += DAY)
    out.push(new Date(d).toISOString().slice(0, 10));
  return out;
};
const series = (metric: string, from: string, to: string) =>
  days(from, to).map((date) => ({ date, value: pageInsightValue(pageId, metric, date) as number }));
const sumOf = (values: { value: number }[]) => values.reduce((s, v) => s + v.value, 0);

/**
 * A Page token of `login` straight from the Facebook simulator, granted `scope` (Meta keeps what a user
 * granted once: a login that must lack a permission is one that never granted it).
 */
async function graphToken(login: string, scope: string): Promise<{ page: string; user: string; pageId: string }> {
  const g = `${e.sandbox.url}/sandbox/facebook/v24.0`;
  const redirect = 'https://herald.example/cb';
  const dialog = await fetch(
    `${g}/dialog/oauth?client_id=100000000000001&redirect_uri=${encodeURIComponent(redirect)}&login_hint=${login}&scope=${scope}`,
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
  return { page: pages.data[0].access_token, user: user.access_token, pageId: pages.data[0].id };
}

describe('GET /v1/analytics/facebook/page-insights', () => {
  it("reads the Page's metrics from the simulator's Page insights edge", async () => {
    const client = await zernio(e.env, fb.apiKey);
    const q = { accountId: fbAccountId, fromDate: '2026-01-01', toDate: '2026-03-09' };
    const totals = body(
      await client.analytics.getFacebookPageInsights({
        query: { ...q, metrics: 'page_media_view,page_post_engagements,page_video_views,page_follows' },
      }),
    );
    expect(totals).toMatchObject({
      success: true,
      platform: 'facebook',
      metricType: 'total_value',
      accountId: fbAccountId,
    });
    expect(totals.dateRange).toEqual({ since: '2026-01-01', until: '2026-03-09' });
    for (const m of ['page_media_view', 'page_post_engagements', 'page_video_views'])
      expect(totals.metrics[m]).toEqual({ total: sumOf(series(m, q.fromDate, q.toDate)) });
    // A running count: its total is the last day's.
    expect(totals.metrics.page_follows.total).toBe(pageInsightValue(pageId, 'page_follows', '2026-03-09'));
    expect(totals.unavailableMetrics).toBeUndefined();

    const daily = body(
      await client.analytics.getFacebookPageInsights({
        query: {
          accountId: fbAccountId,
          fromDate: '2026-03-01',
          toDate: '2026-03-04',
          metrics: 'page_views_total',
          metricType: 'time_series',
        },
      }),
    );
    expect(daily.metrics.page_views_total.values).toEqual(series('page_views_total', '2026-03-01', '2026-03-04'));
  });

  it("serves the money metrics in Meta's units, with their days", async () => {
    const client = await zernio(e.env, fb.apiKey);
    const res = body(
      await client.analytics.getFacebookPageInsights({
        query: {
          accountId: fbAccountId,
          fromDate: '2026-03-01',
          toDate: '2026-03-03',
          metrics: 'content_monetization_earnings,monetization_approximate_earnings',
        },
      }),
    );
    const micro = days('2026-03-01', '2026-03-03').map((date) => ({
      date,
      value: (pageInsightValue(pageId, 'content_monetization_earnings', date) as any).micro_amount,
    }));
    expect(res.metrics.content_monetization_earnings).toEqual({
      total: sumOf(micro),
      values: micro,
      unit: 'micro_amount',
      currency: 'USD',
    });
    const approx = series('monetization_approximate_earnings', '2026-03-01', '2026-03-03');
    expect(res.metrics.monetization_approximate_earnings).toMatchObject({
      unit: 'unspecified',
      currency: null,
      values: approx,
    });
    expect(res.metrics.monetization_approximate_earnings.total).toBeCloseTo(sumOf(approx), 6);
  });

  it("makes followers_gained and followers_lost of Herald's daily follower reads", async () => {
    // The range starts the day after the first read: its first day counts from the read before it.
    const from = new Date(e.env.clock.now().getTime() + 2 * DAY).toISOString().slice(0, 10);
    await dailyReads('facebook', pageId, [1000, 1012, 1007, 1030]);
    const client = await zernio(e.env, fb.apiKey);
    const today = e.env.clock.now().toISOString().slice(0, 10);
    const res = body(
      await client.analytics.getFacebookPageInsights({
        query: {
          accountId: fbAccountId,
          fromDate: from,
          toDate: today,
          metrics: 'followers_gained,followers_lost',
          metricType: 'time_series',
        },
      }),
    );
    expect(res.metrics.followers_gained).toEqual({
      total: 12 + 23,
      values: days(from, today).map((date, i) => ({ date, value: [12, 0, 23][i] })),
    });
    expect(res.metrics.followers_lost.total).toBe(5);
    expect(res.metrics.followers_lost.values.map((v: any) => v.value)).toEqual([0, 5, 0]);
  });

  it('refuses deprecated or unknown metrics and bad ranges with a 400, before Graph is called', async () => {
    const client = await zernio(e.env, fb.apiKey);
    for (const query of [
      { accountId: fbAccountId, metrics: 'page_impressions' },
      { accountId: fbAccountId, metrics: 'page_fans,page_follows' },
      { accountId: fbAccountId, fromDate: '2025-12-01', toDate: '2026-03-01' },
      { accountId: fbAccountId, fromDate: '2026-03-05', toDate: '2026-03-01' },
      { accountId: fbAccountId, toDate: '2026-02-30' },
    ]) {
      const err = await zernioError(client.analytics.getFacebookPageInsights({ query: query as any }));
      expect(err.statusCode, JSON.stringify(query)).toBe(400);
    }
    const other = await zernioError(client.analytics.getFacebookPageInsights({ query: { accountId: igAccountId } }));
    expect(other.statusCode).toBe(404);
    const noAddon = await e.env.createUser({ addons: [] });
    const err402 = await zernioError(
      (await zernio(e.env, noAddon.apiKey)).analytics.getFacebookPageInsights({ query: { accountId: fbAccountId } }),
    );
    expect(err402.statusCode).toBe(402);
  });

  it('is refused by the simulator as Graph refuses it', async () => {
    const good = await graphToken('fbInsights1', 'pages_show_list,pages_read_engagement,read_insights');
    const bare = await graphToken('fbInsightsBare', 'pages_show_list,pages_read_engagement');
    const call = async (q: string, token = good.page, page = pageId) =>
      fetch(`${e.sandbox.url}/sandbox/facebook/v24.0/${page}/insights?${q}`, {
        headers: { authorization: `OAuth ${token}` },
      });
    const since = Date.parse('2026-03-01T00:00:00Z') / 1000;
    const ok = await call(`metric=page_media_view&period=day&since=${since}&until=${since + 86_400}`);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).data[0].values).toEqual([
      { value: pageInsightValue(pageId, 'page_media_view', '2026-03-01'), end_time: '2026-03-02T08:00:00+0000' },
    ]);
    for (const [q, token, code, page] of [
      ['metric=page_impressions&period=day', good.page, 100, pageId],
      ['metric=page_fan_adds&period=day', good.page, 100, pageId],
      ['period=day', good.page, 3001, pageId],
      ['metric=page_follows&period=week', good.page, 100, pageId],
      [`metric=page_media_view&period=day&since=${since - 91 * 86_400}&until=${since}`, good.page, 100, pageId],
      ['metric=page_media_view&period=day', bare.page, 10, bare.pageId],
      ['metric=page_media_view&period=day', good.user, 190, pageId],
    ] as const) {
      const res = await call(q, token, page);
      expect(res.status, q).toBe(400);
      expect(((await res.json()) as any).error.code, q).toBe(code);
    }
  });
});

describe('GET /v1/analytics/facebook/post-earnings', () => {
  it("reads a post's lifetime earnings and refuses what would scope them to a window", async () => {
    const post = await createNow(fb.sdk, 'facebook', fbAccountId, { content: 'FB earnings post' });
    await settle(e, 2);
    const [item] = await inspected(e, 'facebook', 'FB earnings post');
    expect(post._id).toBeTruthy();
    const client = await zernio(e.env, fb.apiKey);
    const res = body(
      await client.analytics.getFacebookPostEarnings({ query: { accountId: fbAccountId, postId: item.id } }),
    );
    expect(res).toEqual({
      success: true,
      accountId: fbAccountId,
      postId: item.id,
      platform: 'facebook',
      period: 'lifetime',
      metrics: {
        content_monetization_earnings: { total: earningsMicro(item.id), unit: 'micro_amount', currency: 'USD' },
        monetization_approximate_earnings: { total: approximateEarnings(item.id), unit: 'unspecified', currency: null },
      },
      dataDelay: expect.any(String),
    });
    const one = body(
      await client.analytics.getFacebookPostEarnings({
        query: { accountId: fbAccountId, postId: item.id, metrics: 'monetization_approximate_earnings' },
      }),
    );
    expect(Object.keys(one.metrics)).toEqual(['monetization_approximate_earnings']);

    for (const [extra, code] of [
      [{ since: '2026-03-01' }, 'unsupported_parameter'],
      [{ period: 'day' }, 'unsupported_parameter'],
      [{ metricType: 'time_series' }, 'unsupported_parameter'],
      [{ breakdown: 'country' }, 'invalid_breakdown'],
      [{ metrics: 'page_media_view' }, 'invalid_metrics'],
      [{ postId: '999_123' }, 'invalid_post_id'],
      [{ postId: 'abc' }, 'invalid_post_id'],
    ] as const) {
      const err = await zernioError(
        client.analytics.getFacebookPostEarnings({
          query: { accountId: fbAccountId, postId: item.id, ...extra } as any,
        }),
      );
      expect(err.statusCode, JSON.stringify(extra)).toBe(400);
      expect(err.code, JSON.stringify(extra)).toBe(code);
    }
    // A post of this Page that Graph does not have: Graph's refusal, as a 400.
    const gone = await zernioError(
      client.analytics.getFacebookPostEarnings({ query: { accountId: fbAccountId, postId: `${pageId}_1` } }),
    );
    expect(gone.statusCode).toBe(400);
  });

  it('is refused by the simulator without read_insights', async () => {
    const bare = await graphToken('fbEarningsBare', 'pages_show_list,pages_read_engagement,pages_manage_posts');
    const g = `${e.sandbox.url}/sandbox/facebook/v24.0`;
    const made = (await (
      await fetch(`${g}/${bare.pageId}/feed`, {
        method: 'POST',
        headers: { authorization: `OAuth ${bare.page}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'not monetized for this app' }),
      })
    ).json()) as any;
    const read = (metric: string) =>
      fetch(`${g}/${made.id}/insights?metric=${metric}&period=lifetime`, {
        headers: { authorization: `OAuth ${bare.page}` },
      });
    const res = await read('content_monetization_earnings');
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe(10);
    // The post's other insights stay readable with that token.
    expect((await read('post_clicks')).status).toBe(200);
  });
});

describe('GET /v1/analytics/instagram/follower-history', () => {
  it("serves Herald's daily follower reads as a running count with gains and losses", async () => {
    // From the second read: the first day's gain counts from the read before it (500).
    const from = new Date(e.env.clock.now().getTime() + 2 * DAY).toISOString().slice(0, 10);
    await dailyReads('instagram', igUserId, [500, 520, 515, 515, 540]);
    const to = e.env.clock.now().toISOString().slice(0, 10);
    const client = await zernio(e.env, ig.apiKey);
    const res = body(
      await client.analytics.getInstagramFollowerHistory({
        query: { accountId: igAccountId, fromDate: from, toDate: to, metricType: 'time_series' },
      }),
    );
    expect(res).toMatchObject({ success: true, platform: 'instagram', metricType: 'time_series' });
    expect(res.metrics.follower_count.values).toEqual(
      days(from, to).map((date, i) => ({ date, value: [520, 515, 515, 540][i] })),
    );
    expect(res.metrics.follower_count.total).toBe(540);
    expect(res.metrics.followers_gained.total).toBe(20 + 25);
    expect(res.metrics.followers_lost.total).toBe(5);

    const totals = body(
      await client.analytics.getInstagramFollowerHistory({
        query: { accountId: igAccountId, fromDate: from, toDate: to, metrics: 'follower_count' },
      }),
    );
    expect(totals.metrics).toEqual({ follower_count: { total: 540 } });

    // Herald's own reads need no insights permission; Graph's account insights do, and this account was
    // connected without instagram_manage_insights: the simulator's (#10) is a 400 that says to reconnect.
    const refused = await zernioError(
      client.analytics.getInstagramAccountInsights({ query: { accountId: igAccountId } }),
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.code).toBe('account_reauthorization_required');

    for (const query of [
      { accountId: igAccountId, metrics: 'reach' },
      { accountId: igAccountId, fromDate: '2025-01-01', toDate: '2026-03-01' },
      { accountId: fbAccountId },
    ]) {
      const err = await zernioError(client.analytics.getInstagramFollowerHistory({ query: query as any }));
      expect([400, 404], JSON.stringify(query)).toContain(err.statusCode);
    }
  });
});
