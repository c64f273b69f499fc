import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config.js';
import type { JobRunner } from '../../src/jobs/runner.js';
import { PlatformRegistry } from '../../src/platforms/registry.js';
import {
  PlatformError,
  type AccountCredentials,
  type PlatformAdapter,
  type PostMetrics,
} from '../../src/platforms/types.js';
import { createWorker } from '../../src/worker.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.js';
import { createTestPlatformAdapter } from '../helpers/test-platform-adapter.js';
import { seedAccount, seedPost, seedProfile } from '../helpers/test-platform-fixtures.js';

/*
 * The analytics core against an adapter whose insights the test sets: collection on the schedule, the
 * endpoints' figures, and the add-on gate. Platform end-to-end tests (simulators, SDK) are per platform.
 */

const HOUR = 3_600_000;
// A Monday, in winter (New York is UTC-5).
const START = '2026-01-05T08:00:00.000Z';

describe('analytics collection and endpoints', () => {
  let sim: TestPlatform;
  let env: TestEnv;
  let runner: JobRunner;
  const metrics = new Map<string, PostMetrics>();
  let followers = 100;
  // Access tokens the platform refuses as expired (401).
  const expired = new Set<string>();
  const refuseExpired = (account: AccountCredentials) => {
    if (account.accessToken && expired.has(account.accessToken))
      throw new PlatformError('auth', 'Access token expired', { status: 401 });
  };

  beforeAll(async () => {
    sim = await startTestPlatform();
    const base = createTestPlatformAdapter({ platform: 'twitter', baseUrl: sim.url });
    const withInsights: PlatformAdapter = {
      ...base,
      analytics: {
        batchSize: 50,
        async readPostMetrics(account, targets) {
          refuseExpired(account);
          return new Map(
            targets
              .filter((t) => metrics.has(t.platformPostId))
              .map((t) => [t.platformPostId, metrics.get(t.platformPostId)!]),
          );
        },
        async readAccountMetrics(account) {
          refuseExpired(account);
          return { followers };
        },
      },
    };
    // A platform without insights beside it: its targets are tracked but never read.
    const plain = createTestPlatformAdapter({ platform: 'threads', baseUrl: sim.url });
    env = await createTestEnv({
      now: START,
      env: { ANALYTICS_SCHEDULE: '1h,6h,1d,7d' },
      overrides: { platforms: new PlatformRegistry([withInsights, plain]) },
    });
    runner = await createWorker(env.ctx, { workerId: 'analytics-test' });
  });
  afterAll(async () => {
    await env?.close();
    await sim?.close();
  });

  const get = (key: string, url: string) => env.request(key, 'GET', url);
  const platformIdOf = async (targetId: string) =>
    (
      await env.ctx.db.kysely
        .selectFrom('post_target')
        .select('platform_post_id')
        .where('target_id', '=', targetId)
        .executeTakeFirstOrThrow()
    ).platform_post_id!;

  async function publishAt(tenant: { userId: string; account: any }, at: string, content: string) {
    env.clock.set(at);
    const { postId, targetIds } = await seedPost(env.ctx, {
      tenantId: tenant.userId,
      content,
      targets: [{ account: tenant.account }],
      scheduledFor: new Date(at),
    });
    await runner.drain();
    return { postId, targetId: targetIds[0]!, platformPostId: await platformIdOf(targetIds[0]!) };
  }

  it('reads a published post on the schedule, keeps each read, and shows the latest with its engagement rate', async () => {
    const { userId, apiKey } = await env.createUser({ addons: ['analytics'] });
    const profileId = await seedProfile(env.ctx, userId);
    const account = await seedAccount(env.ctx, userId, profileId, 'twitter');
    const other = await seedAccount(env.ctx, userId, profileId, 'threads');
    const p = await publishAt({ userId, account }, START, 'hello analytics');
    const q = await publishAt({ userId, account: other }, START, 'no insights here');

    // Before the first age nothing is read.
    let one = await get(apiKey, `/v1/analytics?postId=${p.postId}`);
    expect(one.status).toBe(200);
    expect(one.body.analytics).toMatchObject({ impressions: 0, likes: 0, lastUpdated: null });

    metrics.set(p.platformPostId, {
      impressions: 1000,
      reach: 800,
      likes: 40,
      comments: 5,
      shares: 3,
      saves: 2,
      clicks: 7,
      views: 0,
    });
    env.clock.advance(HOUR);
    await runner.drain();
    one = await get(apiKey, `/v1/analytics?postId=${p.postId}`);
    expect(one.body.analytics).toEqual({
      impressions: 1000,
      reach: 800,
      likes: 40,
      comments: 5,
      shares: 3,
      saves: 2,
      clicks: 7,
      views: 0,
      engagementRate: 5, // (40+5+3+2) / 1000
      lastUpdated: env.clock.now().toISOString(),
    });
    expect(one.body.platformAnalytics).toHaveLength(1);
    expect(one.body.platformAnalytics[0]).toMatchObject({
      platform: 'twitter',
      accountId: account.account_id,
      accountMetrics: { followers: 100 },
    });

    // The platform's numbers change; the next age (6h) reads them again.
    metrics.set(p.platformPostId, {
      impressions: 3000,
      reach: 2000,
      likes: 120,
      comments: 10,
      shares: 6,
      saves: 4,
      clicks: 20,
    });
    env.clock.advance(2 * HOUR);
    await runner.drain();
    expect((await get(apiKey, `/v1/analytics?postId=${p.postId}`)).body.analytics.likes).toBe(40);
    env.clock.advance(3 * HOUR);
    await runner.drain();
    one = await get(apiKey, `/v1/analytics?postId=${p.postId}`);
    expect(one.body.analytics).toMatchObject({ impressions: 3000, likes: 120, engagementRate: 4.67 });

    // Both reads are in the time series, one row per day as of its last read.
    const timeline = await get(apiKey, `/v1/analytics/post-timeline?postId=${p.postId}`);
    expect(timeline.status).toBe(200);
    expect(timeline.body.timeline).toEqual([
      expect.objectContaining({
        date: '2026-01-05',
        platform: 'twitter',
        platformPostId: p.platformPostId,
        impressions: 3000,
        likes: 120,
      }),
    ]);
    const byPlatformId = await get(apiKey, `/v1/analytics/post-timeline?postId=${p.platformPostId}`);
    expect(byPlatformId.body.timeline).toHaveLength(1);

    // The list: one row per published target, the overview and the accounts with their followers.
    const list = await get(apiKey, '/v1/analytics?sortBy=engagement');
    expect(list.status).toBe(200);
    expect(list.body.overview).toMatchObject({ totalPosts: 2, publishedPosts: 2, scheduledPosts: 0 });
    expect(list.body.posts.map((x: any) => x.latePostId)).toEqual([p.postId, q.postId]);
    expect(list.body.posts[0]).toMatchObject({
      _id: p.targetId,
      platform: 'twitter',
      isExternal: false,
      analytics: { likes: 120 },
    });
    expect(list.body.pagination).toEqual({ page: 1, limit: 50, total: 2, pages: 1 });
    expect(list.body.hasAnalyticsAccess).toBe(true);
    expect(list.body.accounts.find((a: any) => a._id === account.account_id)).toMatchObject({ followersCount: 100 });

    // The platform without insights was never asked, and its target is no longer planned.
    const row = await env.ctx.db.kysely
      .selectFrom('target_metrics')
      .selectAll()
      .where('target_id', '=', q.targetId)
      .executeTakeFirstOrThrow();
    expect(row.next_collect_at).toBeNull();

    // Daily metrics sum the latest reads per publishing day.
    const daily = await get(apiKey, '/v1/analytics/daily-metrics');
    expect(daily.body.dailyData).toEqual([
      {
        date: '2026-01-05',
        postCount: 2,
        platforms: { twitter: 1, threads: 1 },
        metrics: expect.objectContaining({ impressions: 3000, likes: 120 }),
      },
    ]);
    const decay = await get(apiKey, '/v1/analytics/content-decay');
    expect(decay.body.buckets).toHaveLength(7);
    // Read at 1h and at exactly 6h: all of the final engagement so far came in the first bucket.
    expect(decay.body.buckets[0]).toMatchObject({ bucket_label: '0-6h', post_count: 1, avg_pct_of_final: 100 });
    const freq = await get(apiKey, '/v1/analytics/posting-frequency');
    expect(freq.body.frequency).toContainEqual({
      platform: 'twitter',
      posts_per_week: 1,
      avg_engagement_rate: 4.7,
      avg_engagement: 140,
      weeks_count: 1,
    });
  });

  it('reads followers daily and charts their growth', async () => {
    const { userId, apiKey } = await env.createUser({ addons: ['analytics'] });
    const profileId = await seedProfile(env.ctx, userId);
    const account = await seedAccount(env.ctx, userId, profileId, 'twitter', 'grower');
    followers = 200;
    // The next scan (every minute) finds the account never read.
    env.clock.advance(60_000);
    await runner.drain();
    env.clock.advance(24 * HOUR + 60_000);
    followers = 250;
    await runner.drain();
    const stats = await get(apiKey, '/v1/accounts/follower-stats');
    expect(stats.status).toBe(200);
    const mine = stats.body.accounts.find((a: any) => a._id === account.account_id);
    expect(mine).toMatchObject({ currentFollowers: 250, growth: 50, growthPercentage: 25, dataPoints: 2 });
    expect(stats.body.stats[account.account_id].map((s: any) => s.followers)).toEqual([200, 250]);
    const accounts = await get(apiKey, '/v1/accounts');
    expect(accounts.body.accounts.find((a: any) => a._id === account.account_id)).toMatchObject({
      followersCount: 250,
    });
  });

  it("best-time ranks the weekday and hour, in the caller's time zone, that the history favours", async () => {
    const { userId, apiKey } = await env.createUser({ addons: ['analytics'] });
    const profileId = await seedProfile(env.ctx, userId);
    const account = await seedAccount(env.ctx, userId, profileId, 'twitter', 'timer');
    // Tuesdays at 18:00 UTC do well, Mondays at 09:00 UTC poorly.
    // In time order: the clock only moves forward, as publishing budgets expect (docs/pacing.md).
    const history = [
      { at: '2026-01-06T18:00:00.000Z', likes: 300 },
      { at: '2026-01-12T09:00:00.000Z', likes: 20 },
      { at: '2026-01-13T18:10:00.000Z', likes: 500 },
      { at: '2026-01-19T09:20:00.000Z', likes: 40 },
      { at: '2026-01-19T09:40:00.000Z', likes: 30 },
    ];
    for (const h of history) {
      const p = await publishAt({ userId, account }, h.at, `post at ${h.at}`);
      metrics.set(p.platformPostId, { impressions: 10_000, likes: h.likes });
    }
    env.clock.set('2026-02-20T00:00:00.000Z');
    await runner.drain();
    // The schedule's ages have passed for all of them: read once at the next scan, then done.
    const utc = await get(apiKey, '/v1/analytics/best-time');
    expect(utc.status).toBe(200);
    expect(utc.body.slots[0]).toEqual({ day_of_week: 1, hour: 18, avg_engagement: 400, post_count: 2 });
    expect(utc.body.slots[1]).toEqual({ day_of_week: 0, hour: 9, avg_engagement: 30, post_count: 3 });
    const ny = await get(apiKey, '/v1/analytics/best-time?timezone=America/New_York');
    expect(ny.body.slots[0]).toMatchObject({ day_of_week: 1, hour: 13, post_count: 2 });
    expect(ny.body.timezone).toBe('America/New_York');
    const bad = await get(apiKey, '/v1/analytics/best-time?timezone=Mars/Base');
    expect(bad.status).toBe(400);
  });

  it('answers 402 on every analytics route without the add-on, and shows no follower figures', async () => {
    const { userId, apiKey } = await env.createUser({ plan: 'build' });
    const profileId = await seedProfile(env.ctx, userId);
    const account = (await seedAccount(env.ctx, userId, profileId, 'twitter', 'nofee')).account_id;
    for (const url of [
      // The platforms' own analytics routes: the add-on is checked before the account.
      `/v1/analytics/youtube/daily-views?videoId=abc123&accountId=${account}`,
      `/v1/accounts/${account}/linkedin-aggregate-analytics`,
      `/v1/accounts/${account}/linkedin-post-analytics?urn=urn:li:share:1`,
      `/v1/accounts/${account}/linkedin-post-reactions?urn=urn:li:share:1`,
      '/v1/analytics',
      '/v1/analytics?postId=x',
      '/v1/analytics/daily-metrics',
      '/v1/analytics/best-time',
      '/v1/analytics/content-decay',
      '/v1/analytics/posting-frequency',
      '/v1/analytics/post-timeline?postId=x',
      '/v1/analytics/post-timeline',
      '/v1/accounts/follower-stats',
      '/v1/analytics?limit=oops',
    ]) {
      const res = await get(apiKey, url);
      expect(res.status, url).toBe(402);
      expect(res.body, url).toMatchObject({ error: 'Analytics add-on required', code: 'analytics_addon_required' });
    }
    const accounts = await get(apiKey, '/v1/accounts');
    expect(accounts.body.hasAnalyticsAccess).toBe(false);
    expect(accounts.body.accounts[0].followersCount).toBeUndefined();
  });

  it("keeps tenants apart: another tenant's post is a 404 and its posts are not listed", async () => {
    const a = await env.createUser({ addons: ['analytics'] });
    const b = await env.createUser({ addons: ['analytics'] });
    const profileId = await seedProfile(env.ctx, a.userId);
    const account = await seedAccount(env.ctx, a.userId, profileId, 'twitter', 'private');
    const p = await publishAt({ userId: a.userId, account }, '2026-03-01T10:00:00.000Z', 'mine');
    expect((await get(b.apiKey, `/v1/analytics?postId=${p.postId}`)).status).toBe(404);
    expect((await get(b.apiKey, `/v1/analytics/post-timeline?postId=${p.postId}`)).status).toBe(404);
    expect((await get(b.apiKey, '/v1/analytics')).body.posts).toEqual([]);
    expect((await get(a.apiKey, '/v1/analytics')).body.posts).toHaveLength(1);
  });

  it('refreshes an expired access token and reads with the fresh one, as publishing does', async () => {
    const { userId, apiKey } = await env.createUser({ addons: ['analytics'] });
    const profileId = await seedProfile(env.ctx, userId);
    const account = await seedAccount(env.ctx, userId, profileId, 'twitter', 'expiring');
    const p = await publishAt({ userId, account }, '2026-04-01T10:00:00.000Z', 'read me with a fresh token');
    metrics.set(p.platformPostId, { impressions: 500, likes: 25 });
    expired.add('at-expiring');
    const refreshesBefore = sim.refreshes;
    env.clock.advance(HOUR);
    await runner.drain();

    expect(sim.refreshes).toBe(refreshesBefore + 1);
    const one = await get(apiKey, `/v1/analytics?postId=${p.postId}`);
    expect(one.body.analytics).toMatchObject({
      impressions: 500,
      likes: 25,
      lastUpdated: env.clock.now().toISOString(),
    });
    const row = await env.ctx.db.kysely
      .selectFrom('account')
      .selectAll()
      .where('account_id', '=', account.account_id)
      .executeTakeFirstOrThrow();
    expect(row.is_active).toBe(1);
    expect(row.followers_count).toBe(followers);
    // The fresh token was stored (sealed): the next read uses it without another refresh.
    expect(env.ctx.secrets.open(row.access_token!)).toMatch(/^at_\d+_/);
  });

  it('disconnects the account when the refresh is refused, as publishing does, and the pass goes on', async () => {
    const { userId, apiKey } = await env.createUser({ addons: ['analytics'] });
    const profileId = await seedProfile(env.ctx, userId);
    const revoked = await seedAccount(env.ctx, userId, profileId, 'twitter', 'revoked');
    const healthy = await seedAccount(env.ctx, userId, profileId, 'twitter', 'healthy');
    const gone = await publishAt({ userId, account: revoked }, '2026-05-01T10:00:00.000Z', 'token revoked');
    const fine = await publishAt({ userId, account: healthy }, '2026-05-01T10:00:00.000Z', 'token fine');
    metrics.set(gone.platformPostId, { impressions: 100, likes: 1 });
    metrics.set(fine.platformPostId, { impressions: 200, likes: 2 });
    expired.add('at-revoked');
    sim.revokeRefresh = true;
    try {
      env.clock.advance(HOUR);
      await runner.drain();
    } finally {
      sim.revokeRefresh = false;
    }

    const row = await env.ctx.db.kysely
      .selectFrom('account')
      .selectAll()
      .where('account_id', '=', revoked.account_id)
      .executeTakeFirstOrThrow();
    expect(row.is_active).toBe(0);
    const events = await env.ctx.db.kysely
      .selectFrom('event')
      .select('payload')
      .where('tenant_id', '=', userId)
      .where('type', '=', 'account.disconnected')
      .execute();
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.payload)).toMatchObject({
      account: { accountId: revoked.account_id, disconnectionType: 'unintentional' },
    });
    // The collection job finished (nothing left failing or retrying), its reads moved on to the next age.
    const job = await env.ctx.db.kysely
      .selectFrom('job')
      .selectAll()
      .where('key', '=', `analytics.collect:${revoked.account_id}`)
      .executeTakeFirst();
    expect(job).toBeUndefined();
    const planned = await env.ctx.db.kysely
      .selectFrom('target_metrics')
      .select(['next_collect_at', 'collected_at'])
      .where('target_id', '=', gone.targetId)
      .executeTakeFirstOrThrow();
    expect(planned.collected_at).toBeNull();
    expect(planned.next_collect_at! > env.clock.now().toISOString()).toBe(true);
    // The other account of the same pass was read.
    expect((await get(apiKey, `/v1/analytics?postId=${fine.postId}`)).body.analytics).toMatchObject({
      impressions: 200,
      likes: 2,
    });
  });

  it('best-time applies the offset each post had, across a daylight saving change', async () => {
    const { userId, apiKey } = await env.createUser({ addons: ['analytics'] });
    const profileId = await seedProfile(env.ctx, userId);
    const account = await seedAccount(env.ctx, userId, profileId, 'twitter', 'dst');
    // New York leaves daylight saving time on Sunday 2026-11-01: 18:00 UTC is 14:00 the day before, 13:00 that day.
    for (const at of ['2026-10-31T18:00:00.000Z', '2026-11-01T18:00:00.000Z']) {
      const p = await publishAt({ userId, account }, at, `dst ${at}`);
      metrics.set(p.platformPostId, { impressions: 100, likes: at.startsWith('2026-10') ? 10 : 20 });
    }
    env.clock.advance(2 * HOUR);
    await runner.drain();
    const ny = await get(apiKey, '/v1/analytics/best-time?timezone=America/New_York');
    expect(ny.body.slots).toEqual([
      { day_of_week: 6, hour: 13, avg_engagement: 20, post_count: 1 },
      { day_of_week: 5, hour: 14, avg_engagement: 10, post_count: 1 },
    ]);
  });

  it('pages the list in the order asked, ties broken by target id, each target once', async () => {
    const { userId, apiKey } = await env.createUser({ addons: ['analytics'] });
    const profileId = await seedProfile(env.ctx, userId);
    const account = await seedAccount(env.ctx, userId, profileId, 'twitter', 'pager');
    const at = '2026-11-10T10:00:00.000Z';
    const targets = [];
    for (let i = 0; i < 3; i++) targets.push((await publishAt({ userId, account }, at, `same instant ${i}`)).targetId);
    const later = (await publishAt({ userId, account }, '2026-11-10T11:00:00.000Z', 'later')).targetId;
    const ids = async (q: string) => (await get(apiKey, `/v1/analytics?${q}`)).body.posts.map((x: any) => x._id);
    const tied = [...targets].sort().reverse();
    expect([...(await ids('limit=2&page=1')), ...(await ids('limit=2&page=2'))]).toEqual([later, ...tied]);
    expect(await ids('limit=3&page=1&order=asc')).toEqual([...tied].reverse());
    expect((await get(apiKey, '/v1/analytics?limit=2&page=2')).body.pagination).toEqual({
      page: 2,
      limit: 2,
      total: 4,
      pages: 2,
    });
  });
});

describe('ANALYTICS_SCHEDULE', () => {
  const base = { DATA_DIR: '/nonexistent-analytics-test', SECRET_KEY: 'x'.repeat(32) };
  it('parses ages with units s, m, h and d', () => {
    expect(loadConfig({ ...base, ANALYTICS_SCHEDULE: '30s,5m,2h,3d' }).analyticsScheduleMs).toEqual([
      30_000, 300_000, 7_200_000, 259_200_000,
    ]);
    expect(loadConfig(base).analyticsScheduleMs).toEqual([1, 6, 24, 48, 168, 720, 2160].map((h) => h * HOUR));
  });
  it('refuses a malformed or unordered list at startup, naming it', () => {
    for (const bad of ['1h,6x', '1h,,2h', '6h,1h', '0h', '1.5h', 'soon']) {
      expect(() => loadConfig({ ...base, ANALYTICS_SCHEDULE: bad }), bad).toThrow(ConfigError);
      try {
        loadConfig({ ...base, ANALYTICS_SCHEDULE: bad });
      } catch (e) {
        expect((e as ConfigError).problems.join(' ')).toContain('ANALYTICS_SCHEDULE');
      }
    }
  });
});
