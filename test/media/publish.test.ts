import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twitterSimulator } from '../../src/sandbox/twitter/index.js';
import { xStore } from '../../src/sandbox/twitter/store.js';
import { saveConnectedAccount } from '../../src/domain/accounts/save-account.js';
import { randomHex } from '../../src/lib/crypto.js';
import type { JobRunner } from '../../src/jobs/runner.js';
import type { SandboxServer } from '../../src/sandbox/server.js';
import { createWorker } from '../../src/worker.js';
import type { TestEnv } from '../helpers/context.js';
import { createSandboxEnv, sandboxCall } from '../helpers/sandbox-env.js';
import { sdkError } from '../helpers/posts.js';
import { noiseImage, solidImage } from '../fixtures/media.js';

/*
 * Uploads end to end: presign through the official SDK, PUT with fetch, a post using the publicUrl
 * published by the real X adapter to the X simulator, which receives the bytes through the adapter's
 * chunked upload (read from disk by the PlatformIO's openMedia, not over HTTP).
 */

let e: { env: TestEnv; sandbox: SandboxServer; runner: JobRunner; baseUrl: string; close(): Promise<void> };
const data = (res: { data?: unknown }) => res.data as any;

beforeAll(async () => {
  let clock: () => Date = () => new Date();
  const { env, sandbox, close } = await createSandboxEnv([twitterSimulator({ now: () => clock(), checkAfterSecs: 0 })]);
  clock = () => env.clock.now();
  // PUBLIC_URL is the listener, so the OAuth consent redirect and the upload URLs land on it.
  const baseUrl = await env.listen();
  (env.config as { publicUrl: string }).publicUrl = baseUrl;
  (env.ctx.config as { publicUrl: string }).publicUrl = baseUrl;
  const runner = await createWorker(env.ctx, { workerId: 'media-e2e' });
  e = { env, sandbox, runner, baseUrl, close };
});
afterAll(async () => e?.close());

async function connectedTenant(xUser: { id: string; username: string }) {
  const { userId, apiKey } = await e.env.createUser();
  const sdk = await e.env.sdk(apiKey);
  const profile = data(await sdk.profiles.createProfile({ body: { name: `X ${xUser.username}` } })).profile;
  await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_oauth/users', { ...xUser, name: xUser.username });
  const start = data(
    await sdk.connect.getConnectUrl({
      path: { platform: 'twitter' },
      query: { profileId: profile._id, redirect_url: `${e.baseUrl}/health` },
    }),
  );
  // The sandbox consent page approves as the login_hint user and redirects through Herald's callback.
  await (await fetch(`${start.authUrl}&login_hint=${xUser.id}`)).text();
  const accounts = data(await sdk.accounts.listAccounts({ query: { profileId: profile._id } })).accounts;
  /** Connects another platform's account to the same profile through the account service. */
  const account = async (platform: 'facebook' | 'googlebusiness' | 'bluesky') =>
    (
      await saveConnectedAccount(e.env.ctx, {
        tenantId: userId,
        profileId: profile._id,
        platform,
        profile: { platformUserId: randomHex(6), username: `${platform}_${randomHex(3)}` },
        tokens: { accessToken: `token-${randomHex(8)}` },
      })
    ).account.account_id;
  return { userId, apiKey, sdk, profileId: profile._id, xAccount: accounts[0]._id as string, account };
}

async function upload(sdk: any, filename: string, contentType: string, bytes: Buffer) {
  const presigned = data(await sdk.media.getMediaPresignedUrl({ body: { filename, contentType, size: bytes.length } }));
  const put = await fetch(presigned.uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': contentType },
    body: bytes,
  });
  expect(put.status).toBe(200);
  return presigned as { publicUrl: string; key: string };
}

/** The bytes the X simulator assembled from the chunked upload of a tweet's first media. */
function receivedBytes(authorId: string): { mimeType: string; bytes: Buffer }[] {
  const state = e.sandbox.state('twitter');
  const post = state.posts.filter((p: { extra?: Record<string, unknown> }) => p.extra?.authorId === authorId).at(-1)!;
  return (post.extra!.mediaIds as string[]).map((id) => {
    const m = xStore(state).media.get(id)!;
    const parts = [...m.segments.entries()].sort(([a], [b]) => a - b).map(([, b]) => b);
    return { mimeType: m.mediaType, bytes: Buffer.concat(parts) };
  });
}

describe('media in posts', () => {
  it('publishes a post with an uploaded image: the simulator receives exactly the uploaded bytes', async () => {
    const t = await connectedTenant({ id: '3100000000000000001', username: 'media_publish' });
    const bytes = await solidImage(640, 480);
    const { publicUrl } = await upload(t.sdk, 'photo.png', 'image/png', bytes);
    const res = await t.sdk.posts.createPost({
      body: {
        content: 'with an upload',
        publishNow: true,
        mediaItems: [{ type: 'image', url: publicUrl }],
        platforms: [{ platform: 'twitter', accountId: t.xAccount }],
      },
    });
    expect(res.response.status).toBe(201);
    await e.runner.drain();
    const got = receivedBytes('3100000000000000001');
    expect(got).toHaveLength(1);
    expect(got[0].mimeType).toBe('image/png');
    expect(got[0].bytes.equals(bytes)).toBe(true);
    const post = data(await t.sdk.posts.getPost({ path: { postId: data(res).post._id } })).post;
    expect(post.status).toBe('published');
  });

  it("compresses an image above X's 5 MB threshold into a derived copy under it and keeps the original", async () => {
    const t = await connectedTenant({ id: '3100000000000000002', username: 'media_big' });
    const big = await noiseImage(2400, 2000, 'png');
    expect(big.length).toBeGreaterThan(5 * 1024 * 1024);
    const { publicUrl, key } = await upload(t.sdk, 'noise.png', 'image/png', big);
    const res = await t.sdk.posts.createPost({
      body: {
        content: 'big picture',
        publishNow: true,
        mediaItems: [{ type: 'image', url: publicUrl }],
        platforms: [{ platform: 'twitter', accountId: t.xAccount }],
      },
    });
    expect(res.response.status).toBe(201);
    await e.runner.drain();
    const got = receivedBytes('3100000000000000002');
    expect(got[0].mimeType).toBe('image/jpeg');
    expect(got[0].bytes.length).toBeLessThanOrEqual(5 * 1024 * 1024);
    expect(got[0].bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))).toBe(true);

    const original = path.join(e.env.config.dataDir, 'media', ...key.split('/'));
    expect(fs.readFileSync(original).equals(big)).toBe(true);
    const row = await e.env.ctx.db.kysely
      .selectFrom('media')
      .selectAll()
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    const derived = JSON.parse(row.derivatives).twitter;
    expect(derived).toMatchObject({ contentType: 'image/jpeg', size: got[0].bytes.length });
    expect(
      fs.readFileSync(path.join(e.env.config.dataDir, 'media', ...derived.key.split('/'))).equals(got[0].bytes),
    ).toBe(true);
    // The derived copy is served at its own public URL too (platforms that fetch by URL get it).
    const served = await fetch(`${e.baseUrl}/v1/media/files/${derived.key}`, { method: 'HEAD' });
    expect(served.headers.get('content-type')).toBe('image/jpeg');
  });

  it('refuses a Facebook post mixing an image and a video with a 400 at creation', async () => {
    const t = await connectedTenant({ id: '3100000000000000003', username: 'media_mix' });
    const fb = await t.account('facebook');
    const image = await upload(t.sdk, 'a.png', 'image/png', await solidImage(400, 400));
    const err = await sdkError(
      t.sdk.posts.createPost({
        body: {
          content: 'mixed',
          publishNow: true,
          mediaItems: [
            { type: 'image', url: image.publicUrl },
            { type: 'video', url: 'https://cdn.example/clip.mp4' },
          ],
          platforms: [{ platform: 'facebook', accountId: fb }],
        },
      }),
    );
    expect(err.statusCode).toBe(400);
    expect(err.message).toMatch(/cannot mix images and videos/);
    expect(
      await e.env.ctx.db.kysely.selectFrom('post').select('post_id').where('tenant_id', '=', t.userId).execute(),
    ).toEqual([]);
  });

  it('refuses uploads that break a platform limit, never uploaded or of another tenant, naming the field', async () => {
    const t = await connectedTenant({ id: '3100000000000000004', username: 'media_limits' });
    const fb = await t.account('facebook');
    const gbp = await t.account('googlebusiness');
    const tiny = await upload(t.sdk, 'tiny.png', 'image/png', await solidImage(150, 150));
    const create = (platform: string, accountId: string, url: string) =>
      e.env.request(t.apiKey, 'POST', '/v1/posts', {
        content: 'limits',
        publishNow: true,
        mediaItems: [{ type: 'image', url }],
        platforms: [{ platform, accountId }],
      });

    const small = await create('facebook', fb, tiny.publicUrl);
    expect(small.status).toBe(400);
    expect(small.body.details.fields['platforms.0.mediaItems.0']).toEqual([
      'facebook: image is 150x150 px; facebook needs at least 200x200 px (media_dimensions)',
    ]);
    const gb = await create('googlebusiness', gbp, tiny.publicUrl);
    expect(gb.status).toBe(400);
    expect(gb.body.details.fields['platforms.0.mediaItems.0'][0]).toMatch(/at least 250x250 px/);

    const pending = data(
      await t.sdk.media.getMediaPresignedUrl({ body: { filename: 'never.png', contentType: 'image/png' } }),
    );
    const notUploaded = await create('twitter', t.xAccount, pending.publicUrl);
    expect(notUploaded.status).toBe(400);
    expect(notUploaded.body.details.errors[0].rule).toBe('media_not_uploaded');

    const other = await connectedTenant({ id: '3100000000000000005', username: 'media_other' });
    const theirs = await upload(other.sdk, 'theirs.png', 'image/png', await solidImage(300, 300));
    const foreign = await create('twitter', t.xAccount, theirs.publicUrl);
    expect(foreign.status).toBe(400);
    expect(foreign.body.details.errors[0].rule).toBe('media_not_found');
    expect(
      await e.env.ctx.db.kysely.selectFrom('post').select('post_id').where('tenant_id', '=', t.userId).execute(),
    ).toEqual([]);
  });
});
