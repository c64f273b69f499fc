import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { facebookSimulator } from '../../src/sandbox/facebook/index.js';
import { accountInsightValue, demographicValue } from '../../src/sandbox/instagram/account-insights.js';
import { instagramSimulator } from '../../src/sandbox/instagram/index.js';
import { grownMetrics } from '../../src/sandbox/metrics.js';
import { solidImage } from '../fixtures/media.js';
import { analyticsUser, collectAt, inspected } from '../helpers/analytics-e2e.js';
import { createNow, createOAuthE2E, sdkData, settle, uploadToHerald, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { seedAccount } from '../helpers/test-platform-fixtures.js';
import { body, zernio, zernioError } from '../helpers/zernio.js';

/*
 * Instagram account insights and the analytics change feed through @zernio/node against the Instagram
 * simulator: the numbers are what the simulator's insights API reports (a pure function of account,
 * metric and day), the simulator refuses what Graph refuses, and a read that changes a post's metrics
 * shows once in GET /v1/analytics/delta.
 */

let e: OAuthE2E;
let t: Awaited<ReturnType<typeof analyticsUser>>;
let accountId: string;
let igUserId: string;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

beforeAll(async () => {
  e = await createOAuthE2E((now) => [facebookSimulator({ now }), instagramSimulator({ now })], {
    now: '2026-03-10T12:00:00Z',
    env: {
      ANALYTICS_SCHEDULE: '1h,6h,1d',
      INSTAGRAM_SCOPES:
        'instagram_basic,instagram_content_publish,instagram_manage_comments,instagram_manage_messages,pages_show_list,pages_read_engagement,business_management,instagram_manage_insights',
    },
  });
  t = await analyticsUser(e, 'IG insights');
  const start = sdkData(
    await t.sdk.connect.getConnectUrl({ path: { platform: 'instagram' }, query: { profileId: t.profileId } }),
  );
  const shown = await fetch(`${start.authUrl}&login_hint=igInsights1`);
  const html = await shown.text();
  const tempToken = /name="tempToken" value="([^"]+)"/.exec(html)![1];
  igUserId = /name="destinationId" value="([^"]+)"/.exec(html)![1];
  await fetch(new URL('choose', shown.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ tempToken, destinationId: igUserId }),
  });
  accountId = sdkData(await t.sdk.accounts.listAccounts({ query: { profileId: t.profileId } })).accounts[0]._id;
});
afterAll(async () => e?.close());

const days = (from: string, to: string) => {
  const out: string[] = [];
  for (let d = Date.parse(`${from}T00:00:00Z`); d <= Date.parse(`${to}T00:00:00Z`); d += DAY)
    out.push(new Date(d).toISOString().slice(0, 10));
  return out;
};
/** Facebook Login straight at the Graph simulator: the token of `login`'s first Page (it acts for its Instagram account). */
async function pageToken(login: string): Promise<string> {
  const g = `${e.sandbox.url}/sandbox/instagram/v24.0`;
  const redirect = 'https://herald.example/cb';
  const dialog = await fetch(
    `${g}/dialog/oauth?client_id=100000000000001&redirect_uri=${encodeURIComponent(redirect)}&login_hint=${login}&scope=pages_show_list,instagram_basic,instagram_manage_insights`,
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

const sum = (metric: string, from: string, to: string) =>
  days(from, to).reduce((s, d) => s + accountInsightValue(igUserId, metric, d), 0);

describe('GET /v1/analytics/instagram/account-insights', () => {
  it("reads the account's totals and reach series from the simulator's insights API", async () => {
    const client = await zernio(e.env, t.apiKey);
    const q = { accountId, fromDate: '2026-02-01', toDate: '2026-03-09', metrics: 'reach,accounts_engaged,likes' };
    const totals = body(await client.analytics.getInstagramAccountInsights({ query: q }));
    expect(totals).toMatchObject({ success: true, platform: 'instagram', metricType: 'total_value', accountId });
    expect(totals.dateRange).toEqual({ since: '2026-02-01', until: '2026-03-09' });
    // 37 days: two Graph calls (Meta allows 30 days a call), their totals added.
    for (const m of ['reach', 'accounts_engaged', 'likes'])
      expect(totals.metrics[m].total).toBe(sum(m, '2026-02-01', '2026-03-09'));

    const series = body(
      await client.analytics.getInstagramAccountInsights({
        query: { accountId, fromDate: '2026-03-01', toDate: '2026-03-05', metrics: 'reach', metricType: 'time_series' },
      }),
    );
    expect(series.metrics.reach.values).toEqual(
      days('2026-03-01', '2026-03-05').map((date) => ({ date, value: accountInsightValue(igUserId, 'reach', date) })),
    );
  });

  it('refuses bad metrics, series of totals-only metrics and bad dates with a 400', async () => {
    const client = await zernio(e.env, t.apiKey);
    for (const query of [
      { accountId, metrics: 'impressions' },
      { accountId, metrics: 'likes', metricType: 'time_series' },
      { accountId, fromDate: '2026-13-01' },
      { accountId, fromDate: '2025-01-01', toDate: '2026-03-01' },
      { accountId, fromDate: '2026-03-05', toDate: '2026-03-01' },
      { accountId, breakdown: 'age' },
    ]) {
      const err = await zernioError(client.analytics.getInstagramAccountInsights({ query: query as any }));
      expect(err.statusCode, JSON.stringify(query)).toBe(400);
    }
  });

  it('is refused by the simulator as Graph refuses it', async () => {
    // The adapter never sends these; the simulator must still refuse them as Graph does.
    const token = await pageToken('igInsights1');
    const call = async (q: string) =>
      fetch(`${e.sandbox.url}/sandbox/instagram/v24.0/${igUserId}/insights?${q}`, {
        headers: { authorization: `OAuth ${token}` },
      });
    const since = Date.parse('2026-03-01T00:00:00Z') / 1000;
    const ok = await call(`metric=likes&period=day&metric_type=total_value&since=${since}&until=${since + 86_400}`);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).data[0].total_value.value).toBe(
      accountInsightValue(igUserId, 'likes', '2026-03-01'),
    );
    for (const q of [
      `metric=likes&period=day&since=${since}&until=${since + 86_400}`,
      `metric=reach&period=day&since=${since}&until=${since + 31 * 86_400}`,
      `metric=impressions&period=day&metric_type=total_value`,
      `metric=follower_demographics&period=lifetime&metric_type=total_value`,
      `metric=reach&period=fortnight`,
    ]) {
      const res = await call(q);
      expect(res.status, q).toBe(400);
      expect(((await res.json()) as any).error.code, q).toBe(100);
    }
  });

  it('answers 400 for an account of another platform and 402 without the add-on', async () => {
    const client = await zernio(e.env, t.apiKey);
    const other = await e.env.createUser({ addons: [] });
    const err402 = await zernioError(
      (await zernio(e.env, other.apiKey)).analytics.getInstagramAccountInsights({ query: { accountId } }),
    );
    expect(err402.statusCode).toBe(402);
    const tenantId = (
      await e.env.ctx.db.kysely
        .selectFrom('profile')
        .select('tenant_id')
        .where('profile_id', '=', t.profileId)
        .executeTakeFirstOrThrow()
    ).tenant_id;
    const telegram = await seedAccount(e.env.ctx, tenantId, t.profileId, 'telegram', 'tg-insights');
    const wrong = await zernioError(
      client.analytics.getInstagramAccountInsights({ query: { accountId: telegram.account_id } }),
    );
    expect(wrong.statusCode).toBe(400);
    const missing = await zernioError(
      client.analytics.getInstagramAccountInsights({ query: { accountId: '0123456789abcdef01234567' } }),
    );
    expect(missing.statusCode).toBe(404);
  });
});

describe('GET /v1/analytics/instagram/demographics', () => {
  it('reads each dimension from the simulator', async () => {
    const client = await zernio(e.env, t.apiKey);
    const res = body(
      await client.analytics.getInstagramDemographics({
        query: { accountId, breakdown: 'age,country', timeframe: 'this_week' },
      }),
    );
    expect(Object.keys(res.demographics).sort()).toEqual(['age', 'country']);
    const us = res.demographics.country.find((r: any) => r.dimension === 'US');
    expect(us.value).toBe(demographicValue(igUserId, 'follower_demographics', 'this_week', 'country:US'));
    const err = await zernioError(
      client.analytics.getInstagramDemographics({ query: { accountId, breakdown: 'shoe_size' } }),
    );
    expect(err.statusCode).toBe(400);
  });
});

describe('GET /v1/analytics/delta', () => {
  it('bootstraps a cursor, then serves a read that changed a post, once', async () => {
    const client = await zernio(e.env, t.apiKey);
    const boot = body(await client.analytics.getAnalyticsDelta({ query: {} }));
    expect(boot).toMatchObject({ data: [], hasMore: false });
    const url = await uploadToHerald(t.sdk, 'delta.jpg', await solidImage(600, 600, 'jpeg'), 'image/jpeg');
    await createNow(t.sdk, 'instagram', accountId, { content: 'delta post', mediaItems: [{ type: 'image', url }] });
    await settle(e, 2);
    const [item] = await inspected(e, 'instagram', 'delta post');
    const publishedAt = Date.parse(item.createdAt);
    await collectAt(e, publishedAt, HOUR);
    const m = grownMetrics(item.id, publishedAt, e.env.clock.now().getTime());

    // On PostgreSQL the feed shows a change once no older transaction of the server is still open (it
    // could still add a row behind it): another test's open transaction delays it, never reorders it.
    const feedAfter = async (query: Record<string, unknown>, expected: number) => {
      let page: any;
      await expect
        .poll(
          async () => {
            page = body(await client.analytics.getAnalyticsDelta({ query }));
            return page.data.length;
          },
          { timeout: 15_000 },
        )
        .toBe(expected);
      return page;
    };
    const page = await feedAfter({ cursor: boot.nextCursor }, 1);
    expect(page.data[0]).toMatchObject({
      accountId,
      profileId: t.profileId,
      platform: 'instagram',
      platformPostId: item.id,
      isDeleted: false,
    });
    expect(page.data[0].metrics).toMatchObject({ reach: m.reach, likes: m.likes, views: m.views });
    const again = body(await client.analytics.getAnalyticsDelta({ query: { cursor: page.nextCursor } }));
    expect(again.data).toEqual([]);

    // Another read with new numbers: one more entry, with the new values.
    await sandboxCall(e.sandbox, 'POST', '/sandbox/instagram/_metrics', { postId: item.id, metrics: { likes: 4242 } });
    await collectAt(e, publishedAt, 6 * HOUR);
    const next = await feedAfter({ cursor: again.nextCursor, limit: 5 }, 1);
    expect(next.data.map((d: any) => d.metrics.likes)).toEqual([4242]);
    // Another platform's filter sees nothing; another tenant's cursor sees nothing of this tenant.
    const filtered = body(
      await client.analytics.getAnalyticsDelta({ query: { cursor: again.nextCursor, platform: 'tiktok' } }),
    );
    expect(filtered.data).toEqual([]);
    const stranger = await e.env.createUser({ addons: ['analytics'] });
    const theirs = body(
      await (await zernio(e.env, stranger.apiKey)).analytics.getAnalyticsDelta({ query: { cursor: boot.nextCursor } }),
    );
    expect(theirs.data).toEqual([]);
  });

  it('refuses a malformed or stale cursor and an out-of-range limit with a 400', async () => {
    const client = await zernio(e.env, t.apiKey);
    const boot = body(await client.analytics.getAnalyticsDelta({ query: {} }));
    for (const query of [{ cursor: 'not-a-cursor' }, { cursor: boot.nextCursor, limit: 0 }, { profileId: 'nope' }]) {
      const err = await zernioError(client.analytics.getAnalyticsDelta({ query: query as any }));
      expect(err.statusCode, JSON.stringify(query)).toBe(400);
    }
    e.env.clock.set(new Date(e.env.clock.now().getTime() + 7 * DAY));
    const stale = await zernioError(client.analytics.getAnalyticsDelta({ query: { cursor: boot.nextCursor } }));
    expect(stale.statusCode).toBe(400);
  });
});
