import type { Zernio } from '@zernio/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { collectAccount } from '../../src/domain/analytics/collect.js';
import { blueskySimulator, didForHandle } from '../../src/sandbox/bluesky/index.js';
import { twitterSimulator } from '../../src/sandbox/twitter/index.js';
import { createOAuthE2E, followAuthUrl, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { body, zernio, zernioError } from '../helpers/zernio.js';

/*
 * A post deleted on its platform outside Herald (the `_delete` control: its owner in the platform's app)
 * is found by analytics collection: X answers its id as resource-not-found, Bluesky's PDS answers
 * RecordNotFound for the record getPosts left out. The target takes the state an unpublish leaves, is not
 * read again, and `post.platform.deleted` (or `post.external.deleted` for an imported post) reaches a real
 * receiver once, in the shapes @zernio/node declares (WebhookPayloadPostPlatform,
 * WebhookPayloadExternalPost). A read that fails (5xx, 429) marks nothing; another tenant hears nothing.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const EVENTS = ['post.platform.deleted', 'post.cancelled', 'post.external.created', 'post.external.deleted'] as const;

let e: OAuthE2E;
let receiver: WebhookReceiver;
let otherReceiver: WebhookReceiver;
let sdk: Zernio;
let otherSdk: Zernio;
let profileId: string;
const accounts: Record<string, string> = {};

async function connectX(user: { id: string; username: string; name: string }) {
  await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_oauth/users', user);
  const start = body(
    await sdk.connect.getConnectUrl({
      path: { platform: 'twitter' },
      query: { profileId, redirect_url: `${e.baseUrl}/health` },
    }),
  );
  await followAuthUrl(`${start.authUrl}&login_hint=${user.id}`);
  const listed = body(await sdk.accounts.listAccounts({ query: { profileId } })).accounts as any[];
  return listed.find((a) => a.platform === 'twitter')._id as string;
}

async function connectBluesky(apiKey: string, handle: string) {
  const res = await fetch(`${e.baseUrl}/v1/connect/bluesky`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ profileId, handle, appPassword: 'abcd-efgh-ijkl-mnop' }),
  });
  expect(res.status).toBe(200);
  const connected = (await res.json()) as any;
  return (connected._id ?? connected.account._id) as string;
}

beforeAll(async () => {
  e = await createOAuthE2E((now) => [twitterSimulator({ now, checkAfterSecs: 0 }), blueskySimulator({ now })], {
    env: { WEBHOOK_ALLOW_INSECURE: '1', ANALYTICS_SCHEDULE: '1h,6h,1d,2d,7d' },
  });
  receiver = await startWebhookReceiver();
  otherReceiver = await startWebhookReceiver();
  const { apiKey } = await e.env.createUser({ addons: ['analytics'] });
  sdk = await zernio(e.env, apiKey);
  profileId = body(await sdk.profiles.createProfile({ body: { name: 'Deleted elsewhere' } })).profile._id;
  accounts.twitter = await connectX({ id: '3000000000000000951', username: 'gone_x', name: 'Gone' });
  accounts.bluesky = await connectBluesky(apiKey, 'gone.bsky.sandbox');
  await sdk.webhooks.createWebhookSettings({ body: { name: 'gone', url: receiver.url, events: [...EVENTS] } });
  // Another tenant, subscribed to the same events: it must hear nothing of these posts.
  const other = await e.env.createUser({ addons: ['analytics'] });
  otherSdk = await zernio(e.env, other.apiKey);
  await otherSdk.webhooks.createWebhookSettings({
    body: { name: 'other', url: otherReceiver.url, events: [...EVENTS] },
  });
});
afterAll(async () => {
  await receiver?.close();
  await otherReceiver?.close();
  await e?.close();
});
beforeEach(() => {
  receiver.received.length = 0;
});

async function publishNow(platform: 'twitter' | 'bluesky', content: string) {
  const res = await sdk.posts.createPost({
    body: { content, publishNow: true, platforms: [{ platform, accountId: accounts[platform] }] },
  });
  expect(res.response.status).toBe(201);
  await e.runner.drain();
  const postId = body(res).post._id as string;
  const item = e.sandbox.state(platform).posts.find((p) => p.text === content)!;
  expect(item).toBeDefined();
  return { postId, platformPostId: item.id };
}

/** Moves the clock on and runs every job due (collection, then webhook deliveries). */
async function runAfter(ms: number) {
  e.env.clock.advance(ms);
  await e.runner.drain();
}

const delivered = (event: string, id?: string) =>
  receiver.received.map((r) => r.json).filter((j) => j?.event === event && (id === undefined || j.post?.id === id));

const getPost = async (postId: string) => body(await sdk.posts.getPost({ path: { postId } })).post;

/** Lookups of one id the X simulator received (GET /2/tweets?ids=...). */
const xReadsOf = (id: string) =>
  e.sandbox.state('twitter').calls.filter((c) => c.path.startsWith('/sandbox/twitter/2/tweets?') && c.path.includes(id))
    .length;

describe('a post deleted on its platform, found by collection', () => {
  it('marks an X post that X answers as resource-not-found deleted once, even when two collections race', async () => {
    const { postId, platformPostId } = await publishNow('twitter', 'deleted in the X app');
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_delete', { postId: platformPostId });
    e.env.clock.advance(HOUR + MINUTE);
    const foundAt = e.env.clock.now().toISOString();
    // Two collections of the account at once: both read the target as due and both hear X's answer.
    await Promise.all([collectAccount(e.env.ctx, accounts.twitter, 1), collectAccount(e.env.ctx, accounts.twitter, 1)]);
    await e.runner.drain();

    const deleted = delivered('post.platform.deleted', postId);
    expect(deleted).toHaveLength(1);
    expect(deleted[0]).toMatchObject({
      event: 'post.platform.deleted',
      post: {
        id: postId,
        status: 'cancelled',
        platforms: [{ platform: 'twitter', status: 'cancelled', platformPostId }],
      },
      platform: { name: 'twitter', status: 'deleted', platformPostId, deletedAt: foundAt },
      account: { accountId: accounts.twitter, platform: 'twitter', username: 'gone_x' },
    });
    expect(typeof deleted[0].platform.publishedUrl).toBe('string');
    expect(delivered('post.cancelled', postId)).toHaveLength(1);

    // The state unpublish leaves: the target and the post cancelled.
    const post = await getPost(postId);
    expect(post.status).toBe('cancelled');
    expect(post.platforms.map((p: any) => p.status)).toEqual(['cancelled']);

    // Not read again at the later ages, and nothing announced twice.
    const reads = xReadsOf(platformPostId);
    await runAfter(6 * HOUR);
    await runAfter(DAY);
    expect(xReadsOf(platformPostId)).toBe(reads);
    expect(delivered('post.platform.deleted', postId)).toHaveLength(1);
  });

  it('does not mark a live X post whose reads fail (503, then 429)', async () => {
    const { postId, platformPostId } = await publishNow('twitter', 'still on X');
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_faults', { op: 'lookup', kind: 'unavailable', count: 20 });
    // Every attempt of the round fails, until the round is given up.
    for (let i = 0; i < 8; i++) await runAfter(HOUR + MINUTE);
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_faults', { op: 'lookup', count: 0 });
    expect(xReadsOf(platformPostId)).toBeGreaterThan(0);
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_faults', { op: 'lookup', kind: 'rate_limited', count: 3 });
    for (let i = 0; i < 4; i++) await runAfter(6 * HOUR);
    expect(delivered('post.platform.deleted', postId)).toEqual([]);
    expect(delivered('post.cancelled', postId)).toEqual([]);
    const post = await getPost(postId);
    expect(post.status).toBe('published');
    expect(post.platforms.map((p: any) => p.status)).toEqual(['published']);
  });

  it('marks a Bluesky post its PDS no longer holds deleted once, and not one whose reads fail', async () => {
    const gone = await publishNow('bluesky', 'deleted in the Bluesky app');
    const live = await publishNow('bluesky', 'still on Bluesky');
    await sandboxCall(e.sandbox, 'POST', '/sandbox/bluesky/_delete', { postId: gone.platformPostId });
    // The first round's getPosts fails (503, then 429 twice): nothing is marked while Bluesky cannot answer.
    await sandboxCall(e.sandbox, 'POST', '/sandbox/bluesky/_faults', { op: 'insights', kind: 'unavailable', count: 1 });
    await sandboxCall(e.sandbox, 'POST', '/sandbox/bluesky/_faults', {
      op: 'insights',
      kind: 'rate_limited',
      count: 2,
      after: 0,
    });
    e.env.clock.advance(HOUR + MINUTE);
    const first = e.env.clock.now().getTime();
    await e.runner.drain();
    expect(delivered('post.platform.deleted')).toEqual([]);
    for (let i = 0; i < 6 && delivered('post.platform.deleted').length === 0; i++) await runAfter(10 * MINUTE);

    const deleted = delivered('post.platform.deleted');
    expect(deleted).toHaveLength(1);
    expect(deleted[0]).toMatchObject({
      post: { id: gone.postId, status: 'cancelled', platforms: [{ platform: 'bluesky', status: 'cancelled' }] },
      platform: { name: 'bluesky', status: 'deleted', platformPostId: gone.platformPostId },
      account: { accountId: accounts.bluesky, platform: 'bluesky' },
    });
    expect(Date.parse(deleted[0].platform.deletedAt)).toBeGreaterThan(first);
    expect((await getPost(gone.postId)).platforms[0].status).toBe('cancelled');
    const kept = await getPost(live.postId);
    expect(kept.status).toBe('published');
    expect(kept.platforms[0].status).toBe('published');

    await runAfter(6 * HOUR);
    expect(delivered('post.platform.deleted')).toHaveLength(1);
  });

  it('announces an imported Bluesky post deleted on Bluesky as post.external.deleted, once', async () => {
    const did = didForHandle('gone.bsky.sandbox');
    const base = `${e.sandbox.url}/sandbox/bluesky/xrpc`;
    const session = (await (
      await fetch(`${base}/com.atproto.server.createSession`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identifier: 'gone.bsky.sandbox', password: 'wxyz-wxyz-wxyz-wxyz' }),
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
          text: 'Posted in the Bluesky app, then deleted',
          createdAt: new Date(e.env.clock.now().getTime() - 2 * HOUR).toISOString(),
        },
      }),
    });
    expect(created.status).toBe(200);
    const { uri } = (await created.json()) as { uri: string };
    // The daily account read imports it (and reads it at once).
    await runAfter(DAY);
    expect(delivered('post.external.created').map((j) => j.post.id)).toContain(uri);

    await sandboxCall(e.sandbox, 'POST', '/sandbox/bluesky/_delete', { postId: uri });
    for (let i = 0; i < 3; i++) await runAfter(DAY);
    const deleted = delivered('post.external.deleted');
    expect(deleted).toHaveLength(1);
    expect(deleted[0]).toMatchObject({
      event: 'post.external.deleted',
      post: {
        id: uri,
        platform: 'bluesky',
        accountId: accounts.bluesky,
        content: 'Posted in the Bluesky app, then deleted',
        source: 'external',
      },
      account: { id: accounts.bluesky, accountId: accounts.bluesky, platform: 'bluesky' },
    });
    expect(typeof deleted[0].post.deletedAt).toBe('string');
    expect(Date.parse(deleted[0].post.deletedAt)).toBeLessThanOrEqual(e.env.clock.now().getTime());
    // An imported post is not one of Herald's: no post.platform.deleted, no post.cancelled for it.
    expect(delivered('post.platform.deleted')).toEqual([]);
    expect(delivered('post.cancelled')).toEqual([]);
  });

  it('tells another tenant nothing, and does not show it the posts', async () => {
    await runAfter(MINUTE);
    expect(otherReceiver.received).toEqual([]);
    const listed = body(await sdk.posts.listPosts({ query: {} })).posts as any[];
    expect(listed.length).toBeGreaterThan(0);
    for (const p of listed) {
      const err = await zernioError(otherSdk.posts.getPost({ path: { postId: p._id } }));
      expect(err.statusCode).toBe(404);
    }
  });
});
