import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grownMetrics } from '../../src/sandbox/metrics.js';
import { youTubeSimulator } from '../../src/sandbox/youtube/index.js';
import { createNow, createOAuthE2E, followAuthUrl, sdkData, settle, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { sandboxCall } from '../helpers/sandbox-env.js';

/*
 * YouTube analytics end to end through the official SDK against the simulator: a published video's
 * statistics collected on the schedule equal what the simulator reports, and change after `_metrics`.
 */

let e: OAuthE2E;
const HOUR = 3_600_000;

beforeAll(async () => {
  e = await createOAuthE2E((now) => [youTubeSimulator({ now })], { env: { ANALYTICS_SCHEDULE: '1h,6h,1d' } });
});
afterAll(async () => {
  await e?.close();
});

describe('YouTube analytics through the official SDK', () => {
  it("collects a video's statistics as the simulator reports them, and again after _metrics changes them", async () => {
    const { apiKey } = await e.env.createUser({ addons: ['analytics'] });
    const sdk = await e.env.sdk(apiKey);
    const profile = sdkData(await sdk.profiles.createProfile({ body: { name: 'YT analytics' } })).profile;
    await sandboxCall(e.sandbox, 'POST', '/sandbox/youtube/_oauth/users', {
      id: 'ytStats1',
      username: 'ytStats1',
      name: 'Channel ytStats1',
    });
    const start = sdkData(
      await sdk.connect.getConnectUrl({
        path: { platform: 'youtube' },
        query: { profileId: profile._id, redirect_url: `${e.baseUrl}/health` },
      }),
    );
    await followAuthUrl(`${start.authUrl}&login_hint=ytStats1`);
    const account = sdkData(await sdk.accounts.listAccounts({ query: { profileId: profile._id } })).accounts[0];
    const post = await createNow(
      sdk,
      'youtube',
      account._id,
      {
        content: 'Stats video',
        mediaItems: [{ type: 'video', url: e.mediaUrl('yt-stats.mp4', 300_000, 'video/mp4') }],
      },
      { title: 'Stats' },
    );
    await settle(e, 6);
    const inspected = ((await sandboxCall(e.sandbox, 'GET', '/sandbox/youtube/_inspect')).posts as any[]).find(
      (p) => p.extra?.title === 'Stats',
    );
    expect(inspected).toBeDefined();
    const publishedAt = Date.parse(inspected.createdAt);

    // An hour after publishing, the collection reads videos.list statistics.
    e.env.clock.set(new Date(publishedAt + HOUR + 60_000));
    await e.runner.drain();
    const expected = grownMetrics(inspected.id, publishedAt, e.env.clock.now().getTime());
    let res = sdkData(await sdk.analytics.getAnalytics({ query: { postId: post._id } }));
    expect(res.analytics).toMatchObject({
      views: expected.views,
      likes: expected.likes,
      comments: expected.comments,
      impressions: 0,
      lastUpdated: e.env.clock.now().toISOString(),
    });
    expect(res.platformAnalytics[0]).toMatchObject({ platform: 'youtube', accountId: account._id });

    // The platform's numbers are set; the next age (6h) reads them.
    await sandboxCall(e.sandbox, 'POST', '/sandbox/youtube/_metrics', {
      postId: inspected.id,
      metrics: { views: 5000, likes: 321, comments: 12 },
    });
    e.env.clock.set(new Date(publishedAt + 6 * HOUR + 60_000));
    await e.runner.drain();
    res = sdkData(await sdk.analytics.getAnalytics({ query: { postId: post._id } }));
    expect(res.analytics).toMatchObject({ views: 5000, likes: 321, comments: 12, engagementRate: 6.66 });

    // The channel's subscribers are read daily.
    const stats = sdkData(await sdk.accounts.getFollowerStats({ query: {} }));
    expect(stats.accounts[0].currentFollowers).toBeGreaterThan(0);
  });
});
