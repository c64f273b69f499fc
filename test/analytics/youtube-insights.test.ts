import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activityByCountry,
  activityByDay,
  addActivity,
  retentionCurve,
  videoDurationSeconds,
  viewerPercentages,
} from '../../src/sandbox/youtube/analytics-reports.js';
import { externalYtVideo, youTubeSimulator } from '../../src/sandbox/youtube/index.js';
import { channelOf, ytStore } from '../../src/sandbox/youtube/store.js';
import { analyticsTenant } from '../helpers/analytics-e2e.js';
import { createOAuthE2E, followAuthUrl, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { body, zernio, zernioError } from '../helpers/zernio.js';

/*
 * YouTube channel insights, video retention and demographics through @zernio/node against the YouTube
 * simulator: a 412 with a reconnect URL until yt-analytics.readonly is granted (none for a read-only
 * key), then the numbers the simulator's Analytics API reports for its videos (analytics-reports.ts),
 * the refusals of bad input as 4xx, and the simulator refusing the report queries YouTube refuses.
 */

const DAY = 86_400_000;
const NOW = '2026-03-20T12:00:00Z';
const USER = { id: 'ytInsights1', username: 'ytInsights1', name: 'Insights Channel' };
const OTHER = { id: 'ytInsightsOther', username: 'ytInsightsOther', name: 'Other Channel' };
const SCOPE = 'https://www.googleapis.com/auth/yt-analytics.readonly';

let e: OAuthE2E;
let t: Awaited<ReturnType<typeof analyticsTenant>>;
let client: Awaited<ReturnType<typeof zernio>>;
let reauthorizeUrl: string;
let first: string;
let second: string;
let foreign: string;
const at = (iso: string) => Date.parse(`${iso}T00:00:00Z`);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const nowMs = () => e.env.clock.now().getTime();
const videos = () =>
  [...ytStore(e.sandbox.state('youtube')).videos.values()].filter((v) => v.id !== foreign && !v.deleted);

beforeAll(async () => {
  e = await createOAuthE2E((now) => [youTubeSimulator({ now })], { now: NOW });
  t = await analyticsTenant(e, 'youtube', USER);
  client = await zernio(e.env, t.apiKey);
  const state = e.sandbox.state('youtube');
  // Two videos of the channel, 12 and 5 days old, and one of another channel.
  first = externalYtVideo(state, USER, 'First upload', nowMs() - 12 * DAY);
  second = externalYtVideo(state, USER, 'Second upload', nowMs() - 5 * DAY);
  foreign = externalYtVideo(state, OTHER, 'Not ours', nowMs() - 12 * DAY);
});
afterAll(async () => e?.close());

describe('YouTube insights without yt-analytics.readonly', () => {
  it('answers 412 with a reconnect URL on each route, and no URL to a read-only key', async () => {
    // Each call starts when awaited: a call started early and refused before its turn is an unhandled rejection.
    const calls = [
      () => client.analytics.getYouTubeChannelInsights({ query: { accountId: t.accountId } }),
      () => client.analytics.getYouTubeVideoRetention({ query: { accountId: t.accountId, videoId: first } }),
      () => client.analytics.getYouTubeDemographics({ query: { accountId: t.accountId } }),
    ];
    for (const call of calls) {
      const err = await zernioError(call());
      expect(err.statusCode).toBe(412);
      expect(err.body).toMatchObject({
        success: false,
        code: 'youtube_analytics_scope_missing',
        scopeStatus: { hasAnalyticsScope: false, requiresReauthorization: true, reauthorizeUrl: expect.any(String) },
      });
      reauthorizeUrl = (err.body as any).scopeStatus.reauthorizeUrl;
      expect(new URL(reauthorizeUrl).searchParams.get('scope')).toContain(SCOPE);
    }

    const created = body(await client.apiKeys.createApiKey({ body: { name: 'ro', permission: 'read' } as any }));
    const readOnly = await zernio(e.env, created.apiKey.key);
    for (const call of [
      () => readOnly.analytics.getYouTubeChannelInsights({ query: { accountId: t.accountId } }),
      () => readOnly.analytics.getYouTubeVideoRetention({ query: { accountId: t.accountId, videoId: first } }),
      () => readOnly.analytics.getYouTubeDemographics({ query: { accountId: t.accountId } }),
    ]) {
      const err = await zernioError(call());
      expect(err.statusCode).toBe(412);
      expect((err.body as any).scopeStatus).toEqual({
        hasAnalyticsScope: false,
        requiresReauthorization: true,
        reauthorizeUrl: null,
      });
      expect(JSON.stringify(err.body)).not.toMatch(/https?:\/\//);
    }
    // Reconnecting through the URL grants the scope to the same account.
    await followAuthUrl(`${reauthorizeUrl}&login_hint=${USER.id}`);
  });
});

describe('GET /v1/analytics/youtube/channel-insights', () => {
  it("adds up the channel's days as the simulator reports them, zero past the newest finalized day", async () => {
    const fromDate = day(nowMs() - 14 * DAY);
    const toDate = day(nowMs());
    const finalized = day(nowMs() - 3 * DAY);
    const reported = activityByDay(videos(), at(fromDate), at(finalized), nowMs());
    expect(reported.length).toBeGreaterThan(5);
    const byDay = new Map(reported.map((r) => [r.day, r.values]));
    const dates: string[] = [];
    for (let d = at(fromDate); d <= at(toDate); d += DAY) dates.push(day(d));

    const series = body(
      await client.analytics.getYouTubeChannelInsights({
        query: {
          accountId: t.accountId,
          fromDate,
          toDate,
          metricType: 'time_series',
          metrics: 'views,estimatedMinutesWatched,averageViewDuration,subscribersGained,subscribersLost',
        },
      }),
    );
    expect(series).toMatchObject({
      success: true,
      accountId: t.accountId,
      platform: 'youtube',
      metricType: 'time_series',
      dateRange: { since: fromDate, until: toDate },
      dataDelay: expect.any(String),
    });
    for (const m of ['views', 'estimatedMinutesWatched', 'subscribersGained', 'subscribersLost'] as const) {
      expect(series.metrics[m].values).toEqual(dates.map((date) => ({ date, value: byDay.get(date)?.[m] ?? 0 })));
      const total = series.metrics[m].values.reduce((s: number, v: any) => s + v.value, 0);
      expect(series.metrics[m].total).toBeCloseTo(total, 6);
    }
    // The days after the newest finalized one read as zero.
    expect(series.metrics.views.values.slice(-3).map((v: any) => v.value)).toEqual([0, 0, 0]);
    // The average view duration: the days' values weighted by their views.
    const all = addActivity(reported.map((r) => r.values));
    const weighted = reported.reduce((s, r) => s + r.values.averageViewDuration * r.values.views, 0) / all.views;
    expect(series.metrics.averageViewDuration.total).toBeCloseTo(weighted, 2);

    const totals = body(
      await client.analytics.getYouTubeChannelInsights({ query: { accountId: t.accountId, fromDate, toDate } }),
    );
    expect(Object.keys(totals.metrics).sort()).toEqual(
      ['estimatedMinutesWatched', 'subscribersGained', 'subscribersLost', 'views'].sort(),
    );
    expect(totals.metricType).toBe('total_value');
    expect(totals.metrics.views).toEqual({ total: all.views });
    expect(totals.metrics.subscribersGained).toEqual({ total: all.subscribersGained });
  });

  it('lists follower changes as unavailable while Herald has no daily reads of the channel', async () => {
    const res = body(
      await client.analytics.getYouTubeChannelInsights({
        query: { accountId: t.accountId, metrics: 'views,followers_gained,followers_lost' },
      }),
    );
    expect(res.metrics.views).toBeDefined();
    expect(res.metrics.followers_gained).toBeUndefined();
    expect(res.unavailableMetrics.map((u: any) => [u.metric, u.reason])).toEqual([
      ['followers_gained', 'no_data'],
      ['followers_lost', 'no_data'],
    ]);
  });

  it('refuses unknown metrics and bad or long ranges with a 400', async () => {
    for (const query of [
      { metrics: 'impressions' },
      { metrics: 'views,impressionsClickThroughRate' },
      { fromDate: '2026-02-30' },
      { fromDate: '2025-10-01', toDate: '2026-03-01' },
      { fromDate: '2026-03-10', toDate: '2026-03-01' },
    ]) {
      const err = await zernioError(
        client.analytics.getYouTubeChannelInsights({ query: { accountId: t.accountId, ...query } as any }),
      );
      expect(err.statusCode, JSON.stringify(query)).toBe(400);
    }
  });
});

describe('GET /v1/analytics/youtube/video-retention', () => {
  it("answers the video's curve over its lifetime, with its title and length", async () => {
    const v = ytStore(e.sandbox.state('youtube')).videos.get(first)!;
    const start = day(v.createdAt);
    const end = day(nowMs() - 3 * DAY);
    const views = addActivity(activityByDay([v], at(start), at(end), nowMs()).map((r) => r.values)).views;
    const res = body(
      await client.analytics.getYouTubeVideoRetention({ query: { accountId: t.accountId, videoId: first } }),
    );
    expect(res).toMatchObject({
      success: true,
      accountId: t.accountId,
      videoId: first,
      title: 'First upload',
      publishedAt: new Date(v.createdAt).toISOString(),
      durationSeconds: videoDurationSeconds(first),
      dateRange: { startDate: start, endDate: end },
      scopeStatus: { hasAnalyticsScope: true },
    });
    expect(res.provisionalSince).toBeUndefined();
    expect(res.note).toBeUndefined();
    expect(res.retentionCurve).toHaveLength(100);
    expect(res.retentionCurve).toEqual(retentionCurve(first, views));

    // A range into the delay window says from which day it is provisional.
    const recent = body(
      await client.analytics.getYouTubeVideoRetention({
        query: { accountId: t.accountId, videoId: first, fromDate: day(nowMs() - 6 * DAY), toDate: day(nowMs()) },
      }),
    );
    expect(recent.provisionalSince).toBe(day(nowMs() - 2 * DAY));
    const recentViews = addActivity(
      activityByDay([v], at(day(nowMs() - 6 * DAY)), at(day(nowMs())), nowMs()).map((r) => r.values),
    ).views;
    expect(recent.retentionCurve).toEqual(retentionCurve(first, recentViews));
  });

  it("is an empty curve with a note before the video's first finalized day", async () => {
    const state = e.sandbox.state('youtube');
    const fresh = externalYtVideo(state, USER, 'Just uploaded', nowMs() - 3_600_000);
    const res = body(
      await client.analytics.getYouTubeVideoRetention({ query: { accountId: t.accountId, videoId: fresh } }),
    );
    expect(res.retentionCurve).toEqual([]);
    expect(res.note).toEqual(expect.any(String));
    ytStore(state).videos.get(fresh)!.deleted = true;
  });

  it("answers 404 for another channel's or an unknown video, 400 for bad input", async () => {
    for (const videoId of [foreign, 'NoSuchVideo']) {
      const err = await zernioError(
        client.analytics.getYouTubeVideoRetention({ query: { accountId: t.accountId, videoId } }),
      );
      expect(err.statusCode).toBe(404);
      expect((err.body as any).code).toBe('video_not_found');
    }
    for (const query of [
      { videoId: first, fromDate: '2026-1-01' },
      { videoId: 'bad id!' },
      { videoId: first, fromDate: '2026-03-15', toDate: '2026-03-10' },
    ]) {
      const err = await zernioError(
        client.analytics.getYouTubeVideoRetention({ query: { accountId: t.accountId, ...query } as any }),
      );
      expect(err.statusCode, JSON.stringify(query)).toBe(400);
    }
  });
});

describe('GET /v1/analytics/youtube/demographics', () => {
  it("answers the channel's age, gender and country over the last 90 days as the simulator reports them", async () => {
    const channelId = channelOf(USER).id;
    const start = day(nowMs() - 90 * DAY);
    const end = day(nowMs() - 3 * DAY);
    const total = addActivity(activityByDay(videos(), at(start), at(end), nowMs()).map((r) => r.values));
    const res = body(await client.analytics.getYouTubeDemographics({ query: { accountId: t.accountId } }));
    expect(res).toMatchObject({
      success: true,
      accountId: t.accountId,
      platform: 'youtube',
      dateRange: { startDate: start, endDate: end },
      note: expect.any(String),
    });
    expect(res.videoId).toBeUndefined();
    expect(res.demographics.age).toEqual(
      viewerPercentages(channelId, ['ageGroup']).map((r) => ({
        dimension: r.keys[0]!.replace(/^age/, '').replace(/-$/, '+'),
        value: r.value,
      })),
    );
    expect(res.demographics.age.map((r: any) => r.dimension)).toEqual([
      '13-17',
      '18-24',
      '25-34',
      '35-44',
      '45-54',
      '55-64',
      '65+',
    ]);
    expect(res.demographics.gender).toEqual(
      viewerPercentages(channelId, ['gender']).map((r) => ({ dimension: r.keys[0], value: r.value })),
    );
    const countries = activityByCountry(channelId, total)
      .map((c) => ({ dimension: c.country, value: c.values.views }))
      .sort((a, b) => b.value - a.value);
    expect(res.demographics.country).toEqual(countries);
    expect(countries.reduce((s, c) => s + c.value, 0)).toBe(total.views);
  });

  it("answers one video's audience since its upload, for the breakdowns asked", async () => {
    const v = ytStore(e.sandbox.state('youtube')).videos.get(second)!;
    const res = body(
      await client.analytics.getYouTubeDemographics({
        query: { accountId: t.accountId, videoId: second, breakdown: 'gender,country' },
      }),
    );
    expect(res).toMatchObject({
      videoId: second,
      title: 'Second upload',
      publishedAt: new Date(v.createdAt).toISOString(),
      dateRange: { startDate: day(v.createdAt), endDate: day(nowMs() - 3 * DAY) },
    });
    expect(Object.keys(res.demographics).sort()).toEqual(['country', 'gender']);
    expect(res.demographics.gender).toEqual(
      viewerPercentages(second, ['gender']).map((r) => ({ dimension: r.keys[0], value: r.value })),
    );
  });

  it("refuses an unknown breakdown (400) and another channel's video (404)", async () => {
    const bad = await zernioError(
      client.analytics.getYouTubeDemographics({ query: { accountId: t.accountId, breakdown: 'age,city' } }),
    );
    expect(bad.statusCode).toBe(400);
    expect((bad.body as any).code).toBe('invalid_breakdown');
    const other = await zernioError(
      client.analytics.getYouTubeDemographics({ query: { accountId: t.accountId, videoId: foreign } }),
    );
    expect(other.statusCode).toBe(404);
    expect((other.body as any).code).toBe('video_not_found');
  });
});

describe('followers_gained and followers_lost', () => {
  it("are the day-to-day changes of Herald's daily subscriber reads", async () => {
    // Runs last in this file: it moves the clock on, a day a read.
    const channelId = channelOf(USER).id;
    const base = 5000;
    const reads = [base, base + 25, base + 18];
    const days: string[] = [];
    for (const [i, followers] of reads.entries()) {
      if (i) e.env.clock.set(new Date(nowMs() + DAY));
      await sandboxCall(e.sandbox, 'POST', '/sandbox/youtube/_metrics', { postId: channelId, metrics: { followers } });
      await e.runner.drain();
      days.push(day(nowMs()));
    }
    const res = body(
      await client.analytics.getYouTubeChannelInsights({
        query: {
          accountId: t.accountId,
          fromDate: days[0],
          toDate: days[2],
          metrics: 'followers_gained,followers_lost',
          metricType: 'time_series',
        },
      }),
    );
    expect(res.unavailableMetrics).toBeUndefined();
    // The first day has no read the day before it: no change to report.
    expect(res.metrics.followers_gained).toEqual({
      total: 25,
      values: [
        { date: days[0], value: 0 },
        { date: days[1], value: 25 },
        { date: days[2], value: 0 },
      ],
    });
    expect(res.metrics.followers_lost).toEqual({
      total: 7,
      values: [
        { date: days[0], value: 0 },
        { date: days[1], value: 0 },
        { date: days[2], value: 7 },
      ],
    });
  });
});

describe('the YouTube Analytics simulator', () => {
  /** A token of USER's grant with `scope`, straight from the simulator's consent. */
  async function tokenWith(scope: string): Promise<string> {
    const base = `${e.sandbox.url}/sandbox/youtube`;
    const verifier = randomBytes(32).toString('base64url');
    const q = new URLSearchParams({
      client_id: 'cid',
      redirect_uri: 'http://127.0.0.1:9/cb',
      response_type: 'code',
      scope,
      access_type: 'offline',
      state: 's',
      login_hint: USER.id,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const res = await fetch(`${base}/o/oauth2/v2/auth?${q}`, { redirect: 'manual' });
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const tok = (await (
      await fetch(`${base}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: 'http://127.0.0.1:9/cb',
          client_id: 'cid',
          client_secret: 's',
          code_verifier: verifier,
        }),
      })
    ).json()) as { access_token: string };
    return tok.access_token;
  }

  it('refuses a grant without yt-analytics.readonly, and the queries YouTube does not support', async () => {
    const report = (token: string, q: Record<string, string>) =>
      fetch(
        `${e.sandbox.url}/sandbox/youtube/v2/reports?${new URLSearchParams({ ids: 'channel==MINE', startDate: '2026-03-01', endDate: '2026-03-10', ...q })}`,
        { headers: { authorization: `Bearer ${token}` } },
      );
    const without = await report(await tokenWith('https://www.googleapis.com/auth/youtube.readonly'), {
      metrics: 'views',
    });
    expect(without.status).toBe(403);
    expect(((await without.json()) as any).error.errors[0].reason).toBe('insufficientPermissions');

    const token = await tokenWith(SCOPE);
    const ok = await report(token, { metrics: 'viewerPercentage', dimensions: 'ageGroup,gender' });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).rows).toHaveLength(21);
    const unsupported: Record<string, string>[] = [
      { metrics: 'views', dimensions: 'ageGroup' },
      { metrics: 'viewerPercentage', dimensions: 'day' },
      { metrics: 'audienceWatchRatio', dimensions: 'elapsedVideoTimeRatio' },
      { metrics: 'audienceWatchRatio', dimensions: 'elapsedVideoTimeRatio', filters: `video==${first},${second}` },
      { metrics: 'views', dimensions: 'country,day' },
      { metrics: 'impressions' },
      { metrics: 'views', dimensions: 'city' },
      { metrics: 'views', dimensions: 'country', sort: '-likes' },
    ];
    for (const q of unsupported) {
      const res = await report(token, q);
      expect(res.status, JSON.stringify(q)).toBe(400);
      expect(((await res.json()) as any).error.errors[0].reason, JSON.stringify(q)).toBe('badRequest');
    }
  });
});
