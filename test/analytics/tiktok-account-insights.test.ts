import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userStats } from '../../src/sandbox/tiktok/analytics.js';
import { externalTikTokVideo, tiktokSimulator } from '../../src/sandbox/tiktok/index.js';
import { analyticsTenant, analyticsUser } from '../helpers/analytics-e2e.js';
import { createOAuthE2E, followAuthUrl, sdkData, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { body, zernio, zernioError } from '../helpers/zernio.js';

/*
 * GET /v1/analytics/tiktok/account-insights through @zernio/node against the TikTok simulator: the
 * counters are what its /v2/user/info/ reports for the creator, the follower series and flow are the
 * follower counts Herald's daily account read recorded, an account without user.info.stats is a 412
 * with a reconnect URL, and bad metrics or dates are a 400.
 */

let e: OAuthE2E;
const DAY = 86_400_000;
const T0 = Date.parse('2026-03-10T12:00:00Z');

beforeAll(async () => {
  e = await createOAuthE2E((now) => [tiktokSimulator({ now })], { now: '2026-03-10T12:00:00Z' });
});
afterAll(async () => e?.close());

const setFollowers = (openId: string, followers: number) =>
  sandboxCall(e.sandbox, 'POST', '/sandbox/tiktok/_metrics', { postId: openId, metrics: { followers } });

describe('GET /v1/analytics/tiktok/account-insights', () => {
  it("reads the creator's counters live and the follower flow from Herald's daily reads", async () => {
    const openId = 'open-ttInsights1';
    const t = await analyticsTenant(e, 'tiktok', { id: openId, username: 'ttInsights1' });
    const state = e.sandbox.state('tiktok');
    externalTikTokVideo(state, openId, 'first', T0 - 3 * DAY);
    externalTikTokVideo(state, openId, 'second', T0 - 2 * DAY);
    // One daily account read a day, the followers changed in between: 1000, 1010, 1004, 1020.
    for (const [day, followers] of [1000, 1010, 1004, 1020].entries()) {
      await setFollowers(openId, followers);
      e.env.clock.set(new Date(T0 + day * DAY));
      await e.runner.drain();
    }
    const client = await zernio(e.env, t.apiKey);
    const now = e.env.clock.now().getTime();
    const stats = userStats(state, openId, now);
    expect(stats.video_count).toBe(2);

    const totals = body(
      await client.analytics.getTikTokAccountInsights({ query: { accountId: t.accountId, fromDate: '2026-03-10' } }),
    );
    expect(totals).toMatchObject({
      success: true,
      accountId: t.accountId,
      platform: 'tiktok',
      dateRange: { since: '2026-03-10', until: '2026-03-13' },
      metricType: 'total_value',
    });
    expect(totals.metrics).toEqual({
      follower_count: { total: 1020 },
      likes_count: { total: stats.likes_count },
      video_count: { total: 2 },
      followers_gained: { total: 26 },
      followers_lost: { total: 6 },
    });
    expect(totals.unavailableMetrics).toBeUndefined();
    const following = body(
      await client.analytics.getTikTokAccountInsights({
        query: { accountId: t.accountId, metrics: 'following_count' },
      }),
    );
    expect(following.metrics).toEqual({ following_count: { total: stats.following_count } });

    const series = body(
      await client.analytics.getTikTokAccountInsights({
        query: {
          accountId: t.accountId,
          fromDate: '2026-03-10',
          metricType: 'time_series',
          metrics: 'follower_count,followers_gained,followers_lost,likes_count',
        },
      }),
    );
    expect(series.metrics.follower_count).toEqual({
      total: 1020,
      values: [
        { date: '2026-03-10', value: 1000 },
        { date: '2026-03-11', value: 1010 },
        { date: '2026-03-12', value: 1004 },
        { date: '2026-03-13', value: 1020 },
      ],
    });
    expect(series.metrics.followers_gained.values).toEqual([
      { date: '2026-03-11', value: 10 },
      { date: '2026-03-12', value: 0 },
      { date: '2026-03-13', value: 16 },
    ]);
    expect(series.metrics.followers_lost.total).toBe(6);
    // Herald records only the follower count: another counter's series is today's reading.
    expect(series.metrics.likes_count).toEqual({
      total: stats.likes_count,
      values: [{ date: '2026-03-13', value: stats.likes_count }],
    });

    // A range before anything was recorded: the flow is unavailable, not a zero.
    const before = body(
      await client.analytics.getTikTokAccountInsights({
        query: { accountId: t.accountId, fromDate: '2026-02-01', toDate: '2026-02-20', metrics: 'followers_gained' },
      }),
    );
    expect(before.metrics).toEqual({});
    expect(before.unavailableMetrics).toEqual([
      { metric: 'followers_gained', reason: 'no_data', message: expect.any(String) },
    ]);

    for (const query of [
      { accountId: t.accountId, metrics: 'reach' },
      { accountId: t.accountId, fromDate: '2026-02-30' },
      { accountId: t.accountId, fromDate: '2025-11-01', toDate: '2026-03-01' },
      { accountId: t.accountId, fromDate: '2026-03-12', toDate: '2026-03-11' },
    ]) {
      const err = await zernioError(client.analytics.getTikTokAccountInsights({ query: query as any }));
      expect(err.statusCode, JSON.stringify(query)).toBe(400);
    }
  });

  it('answers 412 with a reconnect URL for an account that did not grant user.info.stats', async () => {
    const openId = 'open-ttInsights2';
    const t = await analyticsUser(e, 'TikTok no stats');
    await sandboxCall(e.sandbox, 'POST', '/sandbox/tiktok/_oauth/users', { id: openId, username: 'ttInsights2' });
    const start = sdkData(
      await t.sdk.connect.getConnectUrl({
        path: { platform: 'tiktok' },
        query: { profileId: t.profileId, redirect_url: `${e.baseUrl}/health` },
      }),
    );
    // The creator unticks the stats permission on TikTok's consent page.
    const url = new URL(start.authUrl);
    url.searchParams.set(
      'scope',
      url.searchParams
        .get('scope')!
        .split(',')
        .filter((s) => s !== 'user.info.stats')
        .join(','),
    );
    await followAuthUrl(`${url}&login_hint=${openId}`);
    const accountId = sdkData(await t.sdk.accounts.listAccounts({ query: { profileId: t.profileId } })).accounts[0]._id;
    const client = await zernio(e.env, t.apiKey);
    const err = await zernioError(client.analytics.getTikTokAccountInsights({ query: { accountId } }));
    expect(err.statusCode).toBe(412);
    expect(err.body).toMatchObject({
      success: false,
      code: 'analytics_scope_missing',
      scopeStatus: {
        hasAnalyticsScope: false,
        requiresReauthorization: true,
        missingScopes: ['user.info.stats'],
        reauthorizeUrl: expect.stringContaining('user.info.stats'),
      },
    });
    // Without the add-on: 402 before anything.
    const bare = await zernio(e.env, (await e.env.createUser()).apiKey);
    expect((await zernioError(bare.analytics.getTikTokAccountInsights({ query: { accountId } }))).statusCode).toBe(402);
  });
});
