import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINKEDIN_DEFAULT_SCOPES } from '../../src/platforms/linkedin/oauth.js';
import { linkedInSimulator } from '../../src/sandbox/linkedin/index.js';
import { dayMetrics, grownMetrics } from '../../src/sandbox/metrics.js';
import { twitterSimulator } from '../../src/sandbox/twitter/index.js';
import { youTubeSimulator } from '../../src/sandbox/youtube/index.js';
import { createNow, createOAuthE2E, followAuthUrl, sdkData, settle, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { analyticsTenant, healthOf } from '../helpers/analytics-e2e.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { sdkError } from '../helpers/sdk.js';

/*
 * LinkedIn and X post metrics and YouTube daily views end to end through the official SDK against the
 * simulators: collected values equal what the simulator reports and change after `_metrics`; the LinkedIn
 * analytics routes read LinkedIn live; daily views need the yt-analytics scope (412, then one row a day);
 * accounts/health says whether analytics can be read.
 */

let e: OAuthE2E;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const today = new Date();
const VERSION = `${today.getUTCFullYear()}${String(today.getUTCMonth() + 1).padStart(2, '0')}`;
const MEMBER_SCOPES = [...LINKEDIN_DEFAULT_SCOPES, 'r_member_postAnalytics', 'r_member_profileAnalytics'].join(' ');

beforeAll(async () => {
  e = await createOAuthE2E(
    (now) => [linkedInSimulator({ now }), twitterSimulator({ now, checkAfterSecs: 0 }), youTubeSimulator({ now })],
    {
      env: { ANALYTICS_SCHEDULE: '1h,90m,6h,1d', LINKEDIN_API_VERSION: VERSION, LINKEDIN_SCOPES: MEMBER_SCOPES },
    },
  );
});
afterAll(async () => {
  await e?.close();
});

const analyticsOf = async (sdk: any, postId: string) =>
  sdkData(await sdk.analytics.getAnalytics({ query: { postId } })).analytics;
describe('X post metrics through the official SDK', () => {
  it('collects public, non-public and organic metrics and followers as the simulator reports them, and again after _metrics', async () => {
    const user = { id: '3000000000000000901', username: 'x_analytics' };
    const t = await analyticsTenant(e, 'twitter', user);
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_metrics', {
      postId: user.id,
      metrics: { followers: 4321 },
    });
    const post = await createNow(t.sdk, 'twitter', t.account._id, { content: 'Counting on X' });
    await settle(e, 2);
    const tweet = e.sandbox.state('twitter').posts.find((p) => p.text === 'Counting on X')!;
    const publishedAt = Date.parse(tweet.createdAt);

    e.env.clock.set(new Date(publishedAt + HOUR + 60_000));
    await e.runner.drain();
    const m = grownMetrics(tweet.id, publishedAt, e.env.clock.now().getTime());
    expect(await analyticsOf(t.sdk, post._id)).toMatchObject({
      impressions: m.impressions,
      likes: m.likes,
      comments: m.comments,
      shares: m.shares,
      saves: m.saves,
      clicks: m.clicks,
      lastUpdated: e.env.clock.now().toISOString(),
    });
    const stats = sdkData(await t.sdk.accounts.getFollowerStats({ query: {} }));
    expect(
      stats.accounts.find((a: any) => a._id === t.account._id || a.accountId === t.account._id)?.currentFollowers,
    ).toBe(4321);

    // The next age (90 minutes, inside the life of X's two-hour access token) reads the set numbers.
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_metrics', {
      postId: tweet.id,
      metrics: { impressions: 9000, likes: 777, comments: 11 },
    });
    e.env.clock.set(new Date(publishedAt + 90 * 60_000 + 60_000));
    await e.runner.drain();
    expect(await analyticsOf(t.sdk, post._id)).toMatchObject({ impressions: 9000, likes: 777, comments: 11 });

    expect(await healthOf(t.sdk, t.account._id)).toMatchObject({ canFetchAnalytics: true });
  });
});

describe('LinkedIn analytics through the official SDK', () => {
  it("collects a member post's statistics, answers the LinkedIn analytics routes from LinkedIn, and follows _metrics", async () => {
    const t = await analyticsTenant(e, 'linkedin', { id: 'mbrAnalytics1', username: 'mbrAnalytics1' });
    expect(t.account).toBeDefined();
    const post = await createNow(t.sdk, 'linkedin', t.account._id, { content: 'Counting on LinkedIn' });
    await settle(e, 2);
    const li = e.sandbox.state('linkedin').posts.find((p) => p.text === 'Counting on LinkedIn')!;
    const publishedAt = Date.parse(li.createdAt);

    e.env.clock.set(new Date(publishedAt + HOUR + 60_000));
    await e.runner.drain();
    let m = grownMetrics(li.id, publishedAt, e.env.clock.now().getTime());
    expect(await analyticsOf(t.sdk, post._id)).toMatchObject({
      impressions: m.impressions,
      reach: m.reach,
      likes: m.likes,
      comments: m.comments,
      shares: m.shares,
    });

    await sandboxCall(e.sandbox, 'POST', '/sandbox/linkedin/_metrics', {
      postId: li.id,
      metrics: { impressions: 5000, reach: 3000, likes: 150 },
    });
    e.env.clock.set(new Date(publishedAt + 6 * HOUR + 60_000));
    await e.runner.drain();
    expect(await analyticsOf(t.sdk, post._id)).toMatchObject({ impressions: 5000, reach: 3000, likes: 150 });

    // The routes read LinkedIn now.
    m = {
      ...grownMetrics(li.id, publishedAt, e.env.clock.now().getTime()),
      impressions: 5000,
      reach: 3000,
      likes: 150,
    };
    const one = sdkData(
      await t.sdk.analytics.getLinkedInPostAnalytics({ path: { accountId: t.account._id }, query: { urn: li.id } }),
    );
    expect(one).toMatchObject({
      accountType: 'personal',
      postUrn: li.id,
      analytics: { impressions: 5000, reach: 3000, likes: 150, comments: m.comments, shares: m.shares },
    });
    const total = sdkData(
      await t.sdk.analytics.getLinkedInAggregateAnalytics({ path: { accountId: t.account._id }, query: {} }),
    );
    expect(total).toMatchObject({
      aggregation: 'TOTAL',
      dateRange: null,
      analytics: { impressions: 5000, reach: 3000, reactions: 150, comments: m.comments, shares: m.shares },
    });
    const day = new Date(publishedAt).toISOString().slice(0, 10);
    const next = new Date(publishedAt + DAY).toISOString().slice(0, 10);
    const daily = sdkData(
      await t.sdk.analytics.getLinkedInAggregateAnalytics({
        path: { accountId: t.account._id },
        query: { aggregation: 'DAILY', startDate: day, endDate: next },
      }),
    );
    expect(daily.analytics.impressions).toEqual([
      {
        date: day,
        count: dayMetrics(li.id, publishedAt, Date.parse(`${day}T00:00:00Z`), e.env.clock.now().getTime()).impressions,
      },
    ]);
    expect(daily.skippedMetrics).toEqual(['MEMBERS_REACHED (not supported with DAILY aggregation)']);

    // Bad input is a 400 naming what is wrong; reactions are a page-only read.
    const bad = await sdkError(
      t.sdk.analytics.getLinkedInPostAnalytics({ path: { accountId: t.account._id }, query: { urn: 'share:1' } }),
    );
    expect(bad).toMatchObject({ statusCode: 400, code: 'invalid_urn' });
    const badAgg = await sdkError(
      t.sdk.analytics.getLinkedInAggregateAnalytics({
        path: { accountId: t.account._id },
        query: { metrics: 'IMPRESSION,CLICKS' },
      }),
    );
    expect(badAgg).toMatchObject({ statusCode: 400, code: 'invalid_metrics' });
    const reactions = await sdkError(
      t.sdk.analytics.getLinkedInPostReactions({ path: { accountId: t.account._id }, query: { urn: li.id } }),
    );
    expect(reactions).toMatchObject({ statusCode: 400, code: 'PLATFORM_LIMITATION' });

    // An account of a platform without these routes is refused.
    const x = await analyticsTenant(e, 'twitter', { id: '3000000000000000902', username: 'x_not_linkedin' });
    const wrong = await sdkError(
      x.sdk.analytics.getLinkedInPostAnalytics({ path: { accountId: x.account._id }, query: { urn: li.id } }),
    );
    expect(wrong.statusCode).toBe(400);

    expect(await healthOf(t.sdk, t.account._id)).toMatchObject({ canFetchAnalytics: true });
  });
});

describe('YouTube daily views through the official SDK', () => {
  it('is a 412 with a reconnect URL without yt-analytics.readonly, and one row per day once it is granted', async () => {
    const t = await analyticsTenant(e, 'youtube', { id: 'ytDaily1', username: 'ytDaily1' });
    const post = await createNow(
      t.sdk,
      'youtube',
      t.account._id,
      {
        content: 'Daily video',
        mediaItems: [{ type: 'video', url: e.mediaUrl('yt-daily.mp4', 300_000, 'video/mp4') }],
      },
      { title: 'Daily' },
    );
    await settle(e, 6);
    expect(post._id).toBeDefined();
    const video = ((await sandboxCall(e.sandbox, 'GET', '/sandbox/youtube/_inspect')).posts as any[]).find(
      (p) => p.extra?.title === 'Daily',
    );
    const publishedAt = Date.parse(video.createdAt);
    e.env.clock.set(new Date(publishedAt + 3 * DAY + HOUR));

    const health = await healthOf(t.sdk, t.account._id);
    expect(health.canFetchAnalytics).toBe(false);
    const one = sdkData(await t.sdk.accounts.getAccountHealth({ path: { accountId: t.account._id } }));
    expect(one.permissions.missingRequired).toEqual(['https://www.googleapis.com/auth/yt-analytics.readonly']);

    const raw = await fetch(
      `${e.baseUrl}/v1/analytics/youtube/daily-views?videoId=${video.id}&accountId=${t.account._id}`,
      { headers: { authorization: `Bearer ${t.apiKey}` } },
    );
    expect(raw.status).toBe(412);
    const refused = (await raw.json()) as any;
    expect(refused).toMatchObject({
      success: false,
      code: 'youtube_analytics_scope_missing',
      scopeStatus: { hasAnalyticsScope: false, requiresReauthorization: true },
    });
    expect(
      await sdkError(t.sdk.analytics.getYouTubeDailyViews({ query: { videoId: video.id, accountId: t.account._id } })),
    ).toMatchObject({ statusCode: 412 });
    const reauthorize = new URL(refused.scopeStatus.reauthorizeUrl);
    expect(reauthorize.searchParams.get('scope')).toContain('https://www.googleapis.com/auth/yt-analytics.readonly');
    // A read-only key is told the same, but is given no URL that would start a connection.
    const created = await fetch(`${e.baseUrl}/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ro', permission: 'read' }),
    });
    const readKey = ((await created.json()) as any).apiKey.key as string;
    const readOnly = await fetch(
      `${e.baseUrl}/v1/analytics/youtube/daily-views?videoId=${video.id}&accountId=${t.account._id}`,
      { headers: { authorization: `Bearer ${readKey}` } },
    );
    expect(readOnly.status).toBe(412);
    const readBody = (await readOnly.json()) as any;
    expect(readBody).toMatchObject({
      code: 'youtube_analytics_scope_missing',
      scopeStatus: { requiresReauthorization: true, reauthorizeUrl: null },
    });
    expect(JSON.stringify(readBody)).not.toMatch(/https?:\/\//);
    const badDate = await sdkError(
      t.sdk.analytics.getYouTubeDailyViews({
        query: { videoId: video.id, accountId: t.account._id, startDate: '2026-13-01' },
      }),
    );
    expect(badDate).toMatchObject({ statusCode: 400, code: 'invalid_date' });

    // Reconnecting through that URL grants the scope to the same account.
    await followAuthUrl(`${reauthorize}&login_hint=ytDaily1`);
    const start = new Date(publishedAt).toISOString().slice(0, 10);
    const end = new Date(publishedAt + 2 * DAY).toISOString().slice(0, 10);
    const body = sdkData(
      await t.sdk.analytics.getYouTubeDailyViews({
        query: { videoId: video.id, accountId: t.account._id, startDate: start, endDate: end },
      }),
    );
    expect(body.dailyViews.map((d: any) => d.date)).toEqual([
      end,
      new Date(publishedAt + DAY).toISOString().slice(0, 10),
      start,
    ]);
    const nowMs = e.env.clock.now().getTime();
    for (const d of body.dailyViews) {
      const m = dayMetrics(video.id, publishedAt, Date.parse(`${d.date}T00:00:00Z`), nowMs);
      expect(d).toMatchObject({ views: m.views, likes: m.likes, comments: m.comments, shares: m.shares });
    }
    expect(body).toMatchObject({
      success: true,
      videoId: video.id,
      dateRange: { startDate: start, endDate: end },
      scopeStatus: { hasAnalyticsScope: true },
    });
    expect(body.totalViews).toBe(body.dailyViews.reduce((s: number, d: any) => s + d.views, 0));
    expect((await healthOf(t.sdk, t.account._id)).canFetchAnalytics).toBe(true);
  });
});
