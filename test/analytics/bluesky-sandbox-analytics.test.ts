import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blueskySimulator, didForHandle } from '../../src/sandbox/bluesky/index.js';
import { grownMetrics } from '../../src/sandbox/metrics.js';
import { createNow, createOAuthE2E, sdkData, settle, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { sandboxCall } from '../helpers/sandbox-env.js';

/*
 * Bluesky analytics against the in-process simulator (what SANDBOX=1 runs): collected likes, comments
 * (replies) and shares (reposts) equal the sandbox metrics the simulator's getPosts reports, follow
 * `_metrics`; followers come from getProfile; a post made outside Herald is imported from getAuthorFeed.
 */

let e: OAuthE2E;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

beforeAll(async () => {
  e = await createOAuthE2E((now) => [blueskySimulator({ now })], { env: { ANALYTICS_SCHEDULE: '1h,6h,1d,2d,7d' } });
});
afterAll(async () => {
  await e?.close();
});

async function collectAt(publishedAt: number, age: number) {
  e.env.clock.set(new Date(publishedAt + age + 60_000));
  await e.runner.drain();
}

describe('Bluesky analytics on the sandbox simulator', () => {
  it('collects the sandbox metrics of a post, follows _metrics, reads followers and imports a post made outside Herald', async () => {
    const { apiKey } = await e.env.createUser({ addons: ['analytics'] });
    const sdk = await e.env.sdk(apiKey);
    const profileId = sdkData(await sdk.profiles.createProfile({ body: { name: 'Bluesky analytics' } })).profile._id;
    const res = await fetch(`${e.baseUrl}/v1/connect/bluesky`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ profileId, handle: 'stats.bsky.sandbox', appPassword: 'abcd-efgh-ijkl-mnop' }),
    });
    expect(res.status).toBe(200);
    const connected = (await res.json()) as any;
    const accountId = connected._id ?? connected.account._id;
    const did = didForHandle('stats.bsky.sandbox');
    await sandboxCall(e.sandbox, 'POST', '/sandbox/bluesky/_metrics', { postId: did, metrics: { followers: 321 } });

    const post = await createNow(sdk, 'bluesky', accountId, { content: 'Counting on Bluesky' });
    await settle(e, 2);
    const [item] = ((await sandboxCall(e.sandbox, 'GET', '/sandbox/bluesky/_inspect')).posts as any[]).filter(
      (p) => p.text === 'Counting on Bluesky',
    );
    const publishedAt = Date.parse(item.createdAt);
    expect(item.extra.did).toBe(did);

    await collectAt(publishedAt, HOUR);
    const m = grownMetrics(item.id, publishedAt, e.env.clock.now().getTime());
    const analyticsOf = async () =>
      sdkData(await sdk.analytics.getAnalytics({ query: { postId: post._id } })).analytics;
    expect(await analyticsOf()).toMatchObject({
      likes: m.likes,
      comments: m.comments,
      shares: m.shares,
      impressions: 0,
      views: 0,
    });
    const followers = sdkData(await sdk.accounts.getFollowerStats({ query: {} })).accounts.find(
      (a: any) => a._id === accountId || a.accountId === accountId,
    );
    expect(followers?.currentFollowers).toBe(321);

    await sandboxCall(e.sandbox, 'POST', '/sandbox/bluesky/_metrics', {
      postId: item.id,
      metrics: { likes: 420, comments: 37, shares: 5 },
    });
    await collectAt(publishedAt, 6 * HOUR);
    expect(await analyticsOf()).toMatchObject({ likes: 420, comments: 37, shares: 5 });

    // A post written on Bluesky itself (same account, its own session) is imported by the daily sync.
    const base = `${e.sandbox.url}/sandbox/bluesky/xrpc`;
    const session = (await (
      await fetch(`${base}/com.atproto.server.createSession`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identifier: 'stats.bsky.sandbox', password: 'wxyz-wxyz-wxyz-wxyz' }),
      })
    ).json()) as any;
    const created = await fetch(`${base}/com.atproto.repo.createRecord`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.accessJwt}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        repo: did,
        collection: 'app.bsky.feed.post',
        record: {
          $type: 'app.bsky.feed.post',
          text: 'Posted in the Bluesky app',
          createdAt: new Date(e.env.clock.now().getTime() - 2 * HOUR).toISOString(),
        },
      }),
    });
    expect(created.status).toBe(200);
    for (const day of [1, 2]) {
      e.env.clock.set(new Date(e.env.clock.now().getTime() + day * DAY));
      await e.runner.drain();
    }
    const external = sdkData(await sdk.analytics.getAnalytics({ query: { source: 'external', platform: 'bluesky' } }));
    expect(external.posts.map((p: any) => p.content)).toEqual(['Posted in the Bluesky app']);
  });
});
