import type { Zernio } from '@zernio/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { twitterSimulator } from '../../src/sandbox/twitter/index.js';
import { externalYtVideo, youTubeSimulator } from '../../src/sandbox/youtube/index.js';
import { listEvents } from '../../src/store/events.js';
import { createOAuthE2E, followAuthUrl, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { body, zernio } from '../helpers/zernio.js';

/*
 * post.platform.published / .failed / .deleted and post.external.created / .updated end to end: the
 * engine publishes on the X simulator (or is refused by it), unpublish deletes there, the on-demand
 * external sync finds a video made on the YouTube simulator, then finds it retitled; each event reaches a real receiver in the shape @zernio/node
 * 0.2.881 declares (WebhookPayloadPostPlatform, WebhookPayloadExternalPost), and a redelivery repeats
 * its event id.
 */

let e: OAuthE2E;
let receiver: WebhookReceiver;
let tenantId: string;
let sdk: Zernio;
let profileId: string;
let webhookId: string;
const accounts: Record<string, string> = {};

async function connect(platform: 'twitter' | 'youtube', user: { id: string; username: string; name: string }) {
  await sandboxCall(e.sandbox, 'POST', `/sandbox/${platform}/_oauth/users`, user);
  const start = body(
    await sdk.connect.getConnectUrl({
      path: { platform },
      query: { profileId, redirect_url: `${e.baseUrl}/health` },
    }),
  );
  await followAuthUrl(`${start.authUrl}&login_hint=${user.id}`);
  const listed = body(await sdk.accounts.listAccounts({ query: { profileId } })).accounts as any[];
  return listed.find((a) => a.platform === platform)._id as string;
}

beforeAll(async () => {
  e = await createOAuthE2E((now) => [twitterSimulator({ now, checkAfterSecs: 0 }), youTubeSimulator({ now })], {
    env: { WEBHOOK_ALLOW_INSECURE: '1' },
  });
  receiver = await startWebhookReceiver();
  let apiKey: string;
  ({ userId: tenantId, apiKey } = await e.env.createUser());
  sdk = await zernio(e.env, apiKey);
  profileId = body(await sdk.profiles.createProfile({ body: { name: 'Platform events' } })).profile._id;
  accounts.twitter = await connect('twitter', { id: '3000000000000000901', username: 'pp_events', name: 'PP' });
  accounts.youtube = await connect('youtube', { id: 'ppEvents1', username: 'ppEvents1', name: 'Channel PP' });
  webhookId = body(
    await sdk.webhooks.createWebhookSettings({
      body: {
        name: 'per platform',
        url: receiver.url,
        events: [
          'post.platform.published',
          'post.platform.failed',
          'post.platform.deleted',
          'post.external.created',
          'post.external.updated',
        ],
      },
    }),
  ).webhook._id;
});
afterAll(async () => {
  await receiver?.close();
  await e?.close();
});
beforeEach(() => {
  receiver.received.length = 0;
});

async function publishNow(content: string) {
  const res = await sdk.posts.createPost({
    body: { content, publishNow: true, platforms: [{ platform: 'twitter', accountId: accounts.twitter }] },
  });
  expect(res.response.status).toBe(201);
  await e.runner.drain();
  return body(res).post._id as string;
}

const delivered = (event: string) => receiver.received.filter((r) => r.json?.event === event).map((r) => r.json);

describe('post.platform.* webhooks', () => {
  it('announces the target published on X, once, with the post, the platform and the account', async () => {
    const postId = await publishNow('per platform, published');
    const [event] = delivered('post.platform.published');
    expect(delivered('post.platform.published')).toHaveLength(1);
    const tweet = e.sandbox.state('twitter').posts.find((p) => p.text === 'per platform, published')!;
    expect(event).toMatchObject({
      event: 'post.platform.published',
      post: {
        id: postId,
        content: 'per platform, published',
        status: 'published',
        platforms: [
          { platform: 'twitter', status: 'published', accountId: accounts.twitter, platformPostId: tweet.id },
        ],
      },
      platform: { name: 'twitter', status: 'published', platformPostId: tweet.id },
      account: { accountId: accounts.twitter, platform: 'twitter', username: 'pp_events' },
    });
    expect(typeof event.platform.publishedUrl).toBe('string');
    expect(event.platform).not.toHaveProperty('error');
    expect(typeof event.timestamp).toBe('string');
    // The outbox row is the delivery: one event, the same id.
    const rows = await listEvents(e.env.ctx.db.kysely, tenantId, 'post.platform.published');
    expect(rows.filter((r) => JSON.parse(r.payload).post.id === postId).map((r) => r.event_id)).toEqual([event.id]);
  });

  it('announces the target X refused as post.platform.failed, with the error and no platform id', async () => {
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_faults', { kind: 'rejected', count: 1 });
    const postId = await publishNow('per platform, refused');
    expect(delivered('post.platform.published')).toEqual([]);
    const failed = delivered('post.platform.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      post: { id: postId, status: 'failed', platforms: [{ platform: 'twitter', status: 'failed' }] },
      platform: { name: 'twitter', status: 'failed' },
      account: { accountId: accounts.twitter, platform: 'twitter' },
    });
    expect(failed[0].platform.error.length).toBeGreaterThan(0);
    expect(failed[0].platform).not.toHaveProperty('platformPostId');
  });

  it('announces an unpublish as post.platform.deleted with the deleted id and when, and redelivers it with its id', async () => {
    const postId = await publishNow('per platform, removed');
    const tweet = e.sandbox.state('twitter').posts.find((p) => p.text === 'per platform, removed')!;
    e.env.clock.advance(60_000);
    await sdk.posts.unpublishPost({ path: { postId }, body: { platform: 'twitter' } });
    await e.runner.drain();
    expect(tweet.deleted).toBeTruthy();
    const [deleted] = delivered('post.platform.deleted');
    expect(deleted).toMatchObject({
      post: { id: postId, status: 'cancelled' },
      platform: {
        name: 'twitter',
        status: 'deleted',
        platformPostId: tweet.id,
        deletedAt: e.env.clock.now().toISOString(),
      },
      account: { accountId: accounts.twitter, username: 'pp_events' },
    });

    const before = receiver.received.length;
    const res = await sdk.webhooks.redeliverWebhookEvent({ body: { webhookId, eventId: deleted.id } });
    expect(body(res)).toMatchObject({ success: true });
    const replay = receiver.received[before];
    expect(replay.json.id).toBe(deleted.id);
    expect(replay.headers['webhook-id']).toBe(deleted.id);
    expect(replay.json).toEqual(deleted);
  });
});

describe('post.external.* webhooks', () => {
  it('announces a video made on YouTube once when the on-demand sync imports it, and once when it is retitled', async () => {
    const user = { id: 'ppEvents1', username: 'ppEvents1', name: 'Channel PP' };
    const listed = body(await sdk.accounts.listAccounts({ query: { profileId } })).accounts as any[];
    const youtubeUsername = listed.find((a) => a._id === accounts.youtube).username;
    const videoId = externalYtVideo(
      e.sandbox.state('youtube'),
      user as any,
      'Made on YouTube',
      e.env.clock.now().getTime() - 60_000,
    );
    const res = body(await sdk.analytics.syncExternalPosts({ body: { accountId: accounts.youtube, postId: videoId } }));
    expect(res.found).toBe(true);
    await e.runner.drain();
    const created = delivered('post.external.created');
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({
      event: 'post.external.created',
      post: {
        id: videoId,
        platform: 'youtube',
        accountId: accounts.youtube,
        content: res.post.content,
        source: 'external',
        publishedAt: res.post.publishedAt,
      },
      account: { id: accounts.youtube, accountId: accounts.youtube, platform: 'youtube', username: youtubeUsername },
    });
    expect(Array.isArray(created[0].post.mediaItems)).toBe(true);
    // Found again after the debounce, unchanged: Herald holds it, nothing is announced.
    e.env.clock.advance(60_000);
    await sdk.analytics.syncExternalPosts({ body: { accountId: accounts.youtube } });
    await e.runner.drain();
    expect(delivered('post.external.created')).toHaveLength(1);
    expect(delivered('post.external.updated')).toEqual([]);

    // Retitled on YouTube: the next sync takes the new text and announces it once.
    await sdk.posts.updatePostMetadata({
      path: { postId: '_' },
      body: { platform: 'youtube', videoId, accountId: accounts.youtube, title: 'Retitled on YouTube' },
    });
    for (let i = 0; i < 2; i++) {
      e.env.clock.advance(60_000);
      await sdk.analytics.syncExternalPosts({ body: { accountId: accounts.youtube } });
      await e.runner.drain();
    }
    const updated = delivered('post.external.updated');
    expect(updated).toHaveLength(1);
    expect(updated[0]).toMatchObject({
      post: {
        id: videoId,
        platform: 'youtube',
        accountId: accounts.youtube,
        content: 'Retitled on YouTube',
        source: 'external',
      },
      account: { id: accounts.youtube, platform: 'youtube' },
    });
    expect(updated[0].id).not.toBe(created[0].id);
    const found = body(
      await sdk.analytics.syncExternalPosts({ body: { accountId: accounts.youtube, postId: videoId } }),
    );
    expect(found.post.content).toBe('Retitled on YouTube');
  });
});
