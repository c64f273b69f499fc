import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { grownMetrics } from '../../src/sandbox/metrics.js';
import { twitterSimulator } from '../../src/sandbox/twitter/index.js';
import { analyticsTenant, collectAt, inspected } from '../helpers/analytics-e2e.js';
import { createNow, createOAuthE2E, followAuthUrl, sdkData, settle, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/*
 * analytics.synced end to end: collection reads the X simulator, and each completed cycle of an account
 * reaches a real receiver once, in the shape @zernio/node 0.2.881 declares (WebhookPayloadAnalyticsSynced):
 * the account, when, and how many posts it wrote; never for a round the platform refused, nor for a
 * tenant without the analytics add-on.
 */

const HOUR = 3_600_000;
let e: OAuthE2E;
let receiver: WebhookReceiver;

beforeAll(async () => {
  e = await createOAuthE2E((now) => [twitterSimulator({ now, checkAfterSecs: 0 })], {
    env: { ANALYTICS_SCHEDULE: '1h,6h,1d', WEBHOOK_ALLOW_INSECURE: '1' },
  });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await e?.close();
});
beforeEach(() => {
  receiver.received.length = 0;
});

const synced = () => receiver.received.filter((r) => r.json?.event === 'analytics.synced').map((r) => r.json);

async function subscribe(sdk: any, name: string) {
  const res = await sdk.webhooks.createWebhookSettings({
    body: { name, url: receiver.url, events: ['analytics.synced'] },
  });
  expect(res.response.status, JSON.stringify(res.error ?? null)).toBe(200);
}

describe('analytics.synced', () => {
  it('announces each completed collection of an account once, with the posts it wrote, and not a refused one', async () => {
    const user = { id: '3000000000000000931', username: 'synced_x' };
    const t = await analyticsTenant(e, 'twitter', user);
    await subscribe(t.sdk, 'synced');
    // The same platform for a tenant without the add-on: its schedules move on and nothing is announced.
    const { apiKey } = await e.env.createUser();
    const plain = await e.env.sdk(apiKey);
    const plainProfile = sdkData(await plain.profiles.createProfile({ body: { name: 'no add-on' } })).profile._id;
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_oauth/users', {
      id: '3000000000000000932',
      username: 'plain_x',
      name: 'plain_x',
    });
    const start = sdkData(
      await plain.connect.getConnectUrl({
        path: { platform: 'twitter' },
        query: { profileId: plainProfile, redirect_url: `${e.baseUrl}/health` },
      }),
    );
    await followAuthUrl(`${start.authUrl}&login_hint=3000000000000000932`);
    const plainAccount = sdkData(await plain.accounts.listAccounts({ query: { profileId: plainProfile } })).accounts[0];
    await subscribe(plain, 'plain');

    const herald = await createNow(t.sdk, 'twitter', t.accountId, { content: 'Synced on X' });
    await createNow(plain, 'twitter', plainAccount._id, { content: 'Not synced on X' });
    await settle(e, 2);
    // The account's first (daily) read ran when it was connected: a cycle that wrote no post.
    const first = synced();
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({
      event: 'analytics.synced',
      account: { accountId: t.accountId, profileId: t.profileId, platform: 'twitter', username: user.username },
      sync: { postsUpdated: 0 },
    });
    expect(typeof first[0].id).toBe('string');
    expect(Object.keys(first[0]).sort()).toEqual(['account', 'event', 'id', 'sync', 'timestamp']);
    receiver.received.length = 0;

    const [tweet] = await inspected(e, 'twitter', 'Synced on X');
    const publishedAt = Date.parse(tweet.createdAt);
    await collectAt(e, publishedAt, HOUR);
    await receiver.waitFor(1);
    const events = synced();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      account: { accountId: t.accountId },
      sync: { syncedAt: e.env.clock.now().toISOString(), postsUpdated: 1 },
    });
    // What the trigger points at: the figures the cycle read.
    const m = grownMetrics(tweet.id, publishedAt, e.env.clock.now().getTime());
    const read = sdkData(await t.sdk.analytics.getAnalytics({ query: { postId: herald._id } })).analytics;
    expect(read).toMatchObject({ impressions: m.impressions, lastUpdated: events[0].sync.syncedAt });

    // The next age is refused by X (a 403 on the read): the round is given up, and nothing announced.
    receiver.received.length = 0;
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_faults', { kind: 'rejected', count: 1, op: 'lookup' });
    await collectAt(e, publishedAt, 6 * HOUR);
    await settle(e, 1);
    expect(synced()).toEqual([]);
    expect(receiver.received.filter((r) => r.json?.account?.accountId === plainAccount._id)).toEqual([]);
  });
});
