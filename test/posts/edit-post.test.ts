import type { Zernio } from '@zernio/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkedInSimulator } from '../../src/sandbox/linkedin/index.js';
import { redditSimulator } from '../../src/sandbox/reddit/index.js';
import { createOAuthE2E, followAuthUrl, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { body, zernio, zernioError } from '../helpers/zernio.js';

/*
 * POST /v1/posts/{postId}/edit through @zernio/node 0.2.881 (only its baseURL changed): one post published
 * to LinkedIn and Reddit, edited on each through the platform's own edit API, shows the new text on both
 * simulators and on the post; the refusals (a platform whose API has no edit, a link post on Reddit, an
 * unpublished post, a read-only key, another tenant) change nothing.
 */

let e: OAuthE2E;
let apiKey: string;
let sdk: Zernio;
let profileId: string;
let hook: WebhookReceiver;
const accounts: Record<string, string> = {};

async function connect(platform: 'linkedin' | 'reddit', login: string) {
  await sandboxCall(e.sandbox, 'POST', `/sandbox/${platform}/_oauth/users`, {
    id: login,
    username: login,
    name: login,
  });
  const start = (
    await e.env.request(
      apiKey,
      'GET',
      `/v1/connect/${platform}?profileId=${profileId}&redirect_url=${encodeURIComponent(`${e.baseUrl}/health`)}`,
    )
  ).body;
  await followAuthUrl(`${start.authUrl}&login_hint=${login}`);
  const listed = (await e.env.request(apiKey, 'GET', `/v1/accounts?profileId=${profileId}`)).body.accounts;
  return listed.find((a: any) => a.platform === platform)._id as string;
}

const simPost = async (platform: string, id: string) =>
  ((await sandboxCall(e.sandbox, 'GET', `/sandbox/${platform}/_inspect`)).posts as any[]).find((p) => p.id === id);

async function publish(content: string, psd: Record<string, unknown> = {}) {
  const res = await sdk.posts.createPost({
    body: {
      content,
      publishNow: true,
      platforms: [
        { platform: 'linkedin', accountId: accounts.linkedin },
        {
          platform: 'reddit',
          accountId: accounts.reddit,
          platformSpecificData: { subreddit: 'test', title: 'Release notes', ...psd },
        },
      ],
    } as any,
  });
  expect(res.response.status, JSON.stringify(res.error ?? null)).toBe(201);
  e.env.clock.advance(60_000);
  await e.runner.drain();
  const post = body(await sdk.posts.getPost({ path: { postId: body(res).post._id } })).post;
  return { id: post._id as string, targets: post.platforms as any[] };
}

beforeAll(async () => {
  e = await createOAuthE2E((now) => [linkedInSimulator(), redditSimulator({ now })], {
    env: { WEBHOOK_ALLOW_INSECURE: '1' },
  });
  hook = await startWebhookReceiver();
  ({ apiKey } = await e.env.createUser());
  sdk = await zernio(e.env, apiKey);
  profileId = (await e.env.request(apiKey, 'POST', '/v1/profiles', { name: 'Edits' })).body.profile._id;
  accounts.linkedin = await connect('linkedin', 'editMember1');
  accounts.reddit = await connect('reddit', 'editRedditor1');
});
afterAll(async () => {
  await hook?.close();
  await e?.close();
});

describe('POST /v1/posts/{postId}/edit', () => {
  it('edits a post on LinkedIn and Reddit: each simulator shows the new text, and the post records it', async () => {
    const post = await publish('Version 2.0 is out');
    const li = post.targets.find((t) => t.platform === 'linkedin');
    const rd = post.targets.find((t) => t.platform === 'reddit');
    expect([li.status, rd.status]).toEqual(['published', 'published']);
    expect((await simPost('linkedin', li.platformPostId)).text).toBe('Version 2.0 is out');

    const onLinkedIn = await sdk.posts.editPost({
      path: { postId: post.id },
      body: { platform: 'linkedin', content: 'Version 2.0 is out (with notes)' },
    });
    expect(onLinkedIn.response.status).toBe(200);
    expect(body(onLinkedIn)).toMatchObject({ success: true, id: li.platformPostId });
    const onReddit = body(
      await sdk.posts.editPost({
        path: { postId: post.id },
        body: { platform: 'reddit', content: 'Version 2.0 is out, see the changelog', accountId: accounts.reddit },
      }),
    );
    expect(onReddit).toMatchObject({ success: true, id: rd.platformPostId });

    const liSim = await simPost('linkedin', li.platformPostId);
    expect(liSim.text).toBe('Version 2.0 is out (with notes)');
    expect(liSim.extra).toMatchObject({ edited: true, commentary: 'Version 2.0 is out \\(with notes\\)' });
    const rdSim = await simPost('reddit', rd.platformPostId);
    expect(rdSim).toMatchObject({
      text: 'Version 2.0 is out, see the changelog',
      extra: { edited: true, kind: 'self' },
    });

    const after = body(await sdk.posts.getPost({ path: { postId: post.id } })).post;
    const text = (p: string) => after.platforms.find((t: any) => t.platform === p).customContent;
    expect([text('linkedin'), text('reddit')]).toEqual([
      'Version 2.0 is out (with notes)',
      'Version 2.0 is out, see the changelog',
    ]);
    const history = (await e.env.request(apiKey, 'GET', `/v1/posts/${post.id}/logs`)).body.logs.filter(
      (l: any) => l.action === 'edit',
    );
    expect(history.map((l: any) => [l.platform, l.status]).sort()).toEqual([
      ['linkedin', 'success'],
      ['reddit', 'success'],
    ]);
  });

  it('refuses a platform whose API has no edit with 400 PLATFORM_LIMITATION, before any call', async () => {
    const post = await publish('Nothing to see');
    const err = await zernioError(
      sdk.posts.editPost({ path: { postId: post.id }, body: { platform: 'instagram' as any, content: 'x' } }),
    );
    expect(err.statusCode).toBe(400);
    expect(err.code).toBe('PLATFORM_LIMITATION');
  });

  it('refuses a Reddit link post (no body to edit) and leaves it as it was', async () => {
    const post = await publish('A link', { url: 'https://example.com/changelog' });
    const rd = post.targets.find((t) => t.platform === 'reddit');
    expect(rd.status).toBe('published');
    const err = await zernioError(
      sdk.posts.editPost({ path: { postId: post.id }, body: { platform: 'reddit', content: 'Changed' } }),
    );
    expect(err.statusCode).toBe(400);
    expect(err.code).toBe('PLATFORM_LIMITATION');
    const sim = await simPost('reddit', rd.platformPostId);
    expect(sim.extra.edited).toBeUndefined();
    const target = body(await sdk.posts.getPost({ path: { postId: post.id } })).post.platforms.find(
      (t: any) => t.platform === 'reddit',
    );
    expect(target.customContent ?? null).toBeNull();
  });

  it('refuses a post that is not published, a read-only key and another tenant', async () => {
    const draft = body(
      await sdk.posts.createPost({
        body: { content: 'Draft', platforms: [{ platform: 'linkedin', accountId: accounts.linkedin }] } as any,
      }),
    ).post;
    const notPublished = await zernioError(
      sdk.posts.editPost({ path: { postId: draft._id }, body: { platform: 'linkedin', content: 'x' } }),
    );
    expect([notPublished.statusCode, notPublished.code]).toEqual([400, 'not_published']);

    const post = await publish('Stays as it is');
    const li = post.targets.find((t) => t.platform === 'linkedin');
    const readKey = (await e.env.request(apiKey, 'POST', '/v1/api-keys', { name: 'read', permission: 'read' })).body
      .apiKey.key as string;
    const readOnly = await zernioError(
      (await zernio(e.env, readKey)).posts.editPost({
        path: { postId: post.id },
        body: { platform: 'linkedin', content: 'x' },
      }),
    );
    expect([readOnly.statusCode, readOnly.code]).toEqual([403, 'read_only_key']);
    const other = await e.env.createUser();
    const stranger = await zernioError(
      (await zernio(e.env, other.apiKey)).posts.editPost({
        path: { postId: post.id },
        body: { platform: 'linkedin', content: 'x' },
      }),
    );
    expect(stranger.statusCode).toBe(404);
    expect((await simPost('linkedin', li.platformPostId)).text).toBe('Stays as it is');
  });

  it('delivers post.cancelled when an edited copy is then unpublished', async () => {
    await sdk.webhooks.createWebhookSettings({ body: { name: 'cancel', url: hook.url, events: ['post.cancelled'] } });
    const post = await publish('Short lived');
    await sdk.posts.editPost({
      path: { postId: post.id },
      body: { platform: 'linkedin', content: 'Short lived, edited' },
    });
    const res = await sdk.posts.unpublishPost({ path: { postId: post.id }, body: { platform: 'linkedin' } } as any);
    expect(res.response.status).toBe(200);
    await e.runner.drain();
    const cancelled = hook.received.filter((r) => r.json.post?.id === post.id);
    expect(cancelled.map((r) => r.json.event)).toEqual(['post.cancelled']);
    expect(cancelled[0].headers['x-zernio-event-id']).toBe(cancelled[0].json.id);
    expect(cancelled[0].json.post.platforms.find((p: any) => p.platform === 'linkedin').status).toBe('cancelled');
  });
});
