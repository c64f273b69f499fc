import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addLinkedInOrganization, linkedInSimulator } from '../../src/sandbox/linkedin/index.js';
import { orgDay } from '../../src/sandbox/linkedin/org-statistics.js';
import { liStore } from '../../src/sandbox/linkedin/store.js';
import { analyticsUser } from '../helpers/analytics-e2e.js';
import { createOAuthE2E, sdkData, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { followAuthUrl } from '../helpers/oauth-test-platform.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { body, zernio, zernioError } from '../helpers/zernio.js';
import { call, oauthToken } from '../sandbox/rate-limits/helpers.js';

/*
 * GET /v1/analytics/linkedin/org-aggregate-analytics through @zernio/node against the LinkedIn
 * simulator: a page's share statistics, follower gains and page views by day as the simulator's
 * time-bound statistics report them (follower gains only up to two days ago, as LinkedIn allows),
 * followers gained and lost from Herald's daily follower reads; a member account, page views as a
 * series and ranges LinkedIn refuses are a 400, a member who lost the page's admin role a 412.
 */

let e: OAuthE2E;
const DAY = 86_400_000;
const T0 = Date.parse('2026-03-10T12:00:00Z');
const ORG = { id: '5550001', localizedName: 'Insights Org', vanityName: 'insights-org', localizedWebsite: null };
const ORG_URN = `urn:li:organization:${ORG.id}`;
const VERSION = '202603';

beforeAll(async () => {
  e = await createOAuthE2E((now) => [linkedInSimulator({ now })], {
    now: '2026-03-10T12:00:00Z',
    env: { LINKEDIN_API_VERSION: VERSION },
  });
  addLinkedInOrganization(e.sandbox.state('linkedin'), ORG, ['liOrgAdmin1']);
});
afterAll(async () => e?.close());

/** A tenant whose LinkedIn account is `login`, connected as the page ORG or as the member. */
async function connect(login: string, as: 'organization' | 'personal') {
  const t = await analyticsUser(e, `LinkedIn ${login}`);
  await sandboxCall(e.sandbox, 'POST', '/sandbox/linkedin/_oauth/users', { id: login, username: login, name: login });
  const { authUrl } = sdkData(
    await t.sdk.connect.getConnectUrl({
      path: { platform: 'linkedin' },
      query: { profileId: t.profileId, headless: true, redirect_url: 'https://app.example/li' } as any,
    }),
  );
  const end = await followAuthUrl(`${authUrl}&login_hint=${login}`, 'https://app.example/');
  const token = new URL(end.url).searchParams.get('pendingDataToken')!;
  const pending = await e.env.request(null, 'GET', `/v1/connect/pending-data?token=${encodeURIComponent(token)}`);
  const selected = sdkData(
    await t.sdk.connect.linkedin.selectLinkedInOrganization({
      body: {
        profileId: t.profileId,
        tempToken: pending.body.tempToken,
        userProfile: pending.body.userProfile,
        accountType: as,
        ...(as === 'organization'
          ? { selectedOrganization: { id: ORG.id, urn: ORG_URN, name: ORG.localizedName, vanityName: ORG.vanityName } }
          : {}),
        redirect_url: 'https://app.example/done',
      } as any,
    }),
  );
  return { apiKey: t.apiKey, accountId: selected.account.accountId as string };
}

const days = (from: string, to: string) => {
  const out: string[] = [];
  for (let d = Date.parse(`${from}T00:00:00Z`); d <= Date.parse(`${to}T00:00:00Z`); d += DAY)
    out.push(new Date(d).toISOString().slice(0, 10));
  return out;
};

describe('GET /v1/analytics/linkedin/org-aggregate-analytics', () => {
  it("reads a page's statistics by day and the follower flow from Herald's daily reads", async () => {
    const { apiKey, accountId } = await connect('liOrgAdmin1', 'organization');
    // One daily account read a day, the page's followers changed in between: 500, 520, 510.
    for (const [day, followers] of [500, 520, 510].entries()) {
      await sandboxCall(e.sandbox, 'POST', '/sandbox/linkedin/_metrics', { postId: ORG.id, metrics: { followers } });
      e.env.clock.set(new Date(T0 + day * DAY));
      await e.runner.drain();
    }
    const client = await zernio(e.env, apiKey);
    const shareDays = days('2026-03-01', '2026-03-12').map((d) => ({ date: d, ...orgDay(ORG_URN, d) }));
    // Follower statistics end two days before today (2026-03-12): the 9th is the last day read.
    const gainDays = days('2026-03-01', '2026-03-09').map((d) => ({ date: d, ...orgDay(ORG_URN, d) }));
    const total = (xs: typeof shareDays, f: (d: (typeof shareDays)[number]) => number) =>
      xs.reduce((s, d) => s + f(d), 0);
    const impressions = total(shareDays, (d) => d.impressions);
    const engaged = total(shareDays, (d) => d.clicks + d.likes + d.comments + d.shares);

    const totals = body(
      await client.analytics.getLinkedInOrgAggregateAnalytics({
        query: {
          accountId,
          fromDate: '2026-03-01',
          metrics:
            'impressions,unique_impressions,clicks,engagement_rate,organic_followers_gained,paid_followers_gained,page_views_total,page_views_careers,followers_gained,followers_lost',
        },
      }),
    );
    expect(totals).toMatchObject({
      success: true,
      accountId,
      platform: 'linkedin',
      dateRange: { since: '2026-03-01', until: '2026-03-12' },
      metricType: 'total_value',
    });
    expect(totals.metrics).toEqual({
      impressions: { total: impressions },
      unique_impressions: { total: total(shareDays, (d) => d.uniqueImpressions) },
      clicks: { total: total(shareDays, (d) => d.clicks) },
      engagement_rate: { total: engaged / impressions },
      organic_followers_gained: { total: total(gainDays, (d) => d.organicFollowerGain) },
      paid_followers_gained: { total: total(gainDays, (d) => d.paidFollowerGain) },
      page_views_total: { total: total(shareDays, (d) => d.pageViews.all) },
      page_views_careers: { total: total(shareDays, (d) => d.pageViews.careers) },
      followers_gained: { total: 20 },
      followers_lost: { total: 10 },
    });

    const series = body(
      await client.analytics.getLinkedInOrgAggregateAnalytics({
        query: {
          accountId,
          fromDate: '2026-03-01',
          metricType: 'time_series',
          metrics: 'impressions,likes,organic_followers_gained',
        },
      }),
    );
    expect(series.metrics.impressions.values).toEqual(shareDays.map((d) => ({ date: d.date, value: d.impressions })));
    expect(series.metrics.likes.values).toEqual(shareDays.map((d) => ({ date: d.date, value: d.likes })));
    expect(series.metrics.organic_followers_gained.values).toEqual(
      gainDays.map((d) => ({ date: d.date, value: d.organicFollowerGain })),
    );

    // The last two days alone: LinkedIn has no follower gains for them yet; that is no data, not a zero.
    const recent = body(
      await client.analytics.getLinkedInOrgAggregateAnalytics({
        query: { accountId, fromDate: '2026-03-11', metrics: 'organic_followers_gained,impressions' },
      }),
    );
    expect(recent.metrics.organic_followers_gained).toBeUndefined();
    expect(recent.unavailableMetrics).toEqual([
      { metric: 'organic_followers_gained', reason: 'no_data', message: expect.any(String) },
    ]);

    for (const [query, code] of [
      [{ accountId, metrics: 'reach' }, 'invalid_metrics'],
      [{ accountId, metrics: 'page_views_total', metricType: 'time_series' }, 'invalid_metric_type'],
      [{ accountId, fromDate: '2025-12-01', toDate: '2026-03-01' }, 'invalid_date_range'],
      [{ accountId, fromDate: '2025-02-01', toDate: '2025-02-20' }, 'invalid_date_range'],
      [{ accountId, fromDate: '2026-03-32' }, 'invalid_date'],
    ] as const) {
      const err = await zernioError(client.analytics.getLinkedInOrgAggregateAnalytics({ query: query as any }));
      expect([err.statusCode, (err.body as any).code], JSON.stringify(query)).toEqual([400, code]);
    }

    // The member loses the page's admin role: LinkedIn answers 403, Herald a 412 with a reconnect URL.
    liStore(e.sandbox.state('linkedin')).organizations.get(ORG.id)!.admins = [];
    const lost = await zernioError(client.analytics.getLinkedInOrgAggregateAnalytics({ query: { accountId } }));
    expect(lost.statusCode).toBe(412);
    expect(lost.body).toMatchObject({
      success: false,
      code: 'analytics_scope_missing',
      scopeStatus: {
        hasAnalyticsScope: false,
        requiresReauthorization: true,
        missingScopes: ['rw_organization_admin'],
      },
    });
    liStore(e.sandbox.state('linkedin')).organizations.get(ORG.id)!.admins = ['liOrgAdmin1'];
  });

  it("refuses a member's own account with a 400", async () => {
    const { apiKey, accountId } = await connect('liOrgMember1', 'personal');
    const client = await zernio(e.env, apiKey);
    const err = await zernioError(client.analytics.getLinkedInOrgAggregateAnalytics({ query: { accountId } }));
    expect([err.statusCode, (err.body as any).code]).toEqual([400, 'organization_account_required']);
  });

  it("the simulator refuses the time ranges and grants LinkedIn's statistics refuse", async () => {
    const L = '/sandbox/linkedin';
    const paths = { authorize: '/oauth/v2/authorization', token: '/oauth/v2/accessToken' };
    const rest = { 'linkedin-version': VERSION, 'x-restli-protocol-version': '2.0.0' };
    const admin = {
      ...(await oauthToken(e.sandbox, L, paths, 'li-app', {
        scope: 'openid rw_organization_admin',
        user: 'liOrgAdmin1',
      })),
      ...rest,
    };
    const now = e.env.clock.now().getTime();
    const today = Math.floor(now / DAY) * DAY;
    const org = encodeURIComponent(ORG_URN);
    const get = (path: string, start: number, end: number, auth = admin) =>
      call(
        e.sandbox,
        'GET',
        `${L}/rest/${path}&timeIntervals=(timeRange:(start:${start},end:${end}),timeGranularityType:DAY)`,
        undefined,
        auth,
      );
    const shares = `organizationalEntityShareStatistics?q=organizationalEntity&organizationalEntity=${org}`;
    const followers = `organizationalEntityFollowerStatistics?q=organizationalEntity&organizationalEntity=${org}`;
    const pages = `organizationPageStatistics?q=organization&organization=${org}`;

    const ok = await get(shares, today - 3 * DAY, today);
    expect(ok.status).toBe(200);
    expect(ok.body.elements).toHaveLength(3);
    expect((await get(followers, today - 10 * DAY, today - 2 * DAY)).status).toBe(200);
    // A follower range that ends less than two days ago; share and follower ranges past 12 months; end before start.
    for (const [path, start, end] of [
      [followers, today - 10 * DAY, today - DAY],
      [shares, today - 400 * DAY, today - 390 * DAY],
      [followers, today - 400 * DAY, today - 390 * DAY],
      [shares, today, today - DAY],
    ] as const) {
      const res = await get(path, start, end);
      expect(res.status, `${path} ${start} ${end}`).toBe(400);
      expect(res.body).toMatchObject({ code: 'ILLEGAL_ARGUMENT' });
    }
    // Page statistics have no 12-month window.
    expect((await get(pages, today - 400 * DAY, today - 390 * DAY)).status).toBe(200);
    // Without rw_organization_admin, or for a member who does not administer the page: 403.
    await sandboxCall(e.sandbox, 'POST', '/sandbox/linkedin/_oauth/users', {
      id: 'liOrgOutsider1',
      username: 'liOrgOutsider1',
      name: 'Outsider',
    });
    const scopeless = {
      ...(await oauthToken(e.sandbox, L, paths, 'li-app', {
        scope: 'openid r_organization_social',
        user: 'liOrgAdmin1',
      })),
      ...rest,
    };
    const outsider = {
      ...(await oauthToken(e.sandbox, L, paths, 'li-app', {
        scope: 'openid rw_organization_admin',
        user: 'liOrgOutsider1',
      })),
      ...rest,
    };
    for (const path of [shares, followers, pages]) {
      for (const auth of [scopeless, outsider]) {
        const res = await get(path, today - 5 * DAY, today - 3 * DAY, auth);
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ code: 'ACCESS_DENIED' });
      }
    }
  });
});
