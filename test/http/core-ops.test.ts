import type { Zernio } from '@zernio/node';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { externalYtVideo, youTubeSimulator } from '../../src/sandbox/youtube/index.js';
import { createOAuthE2E, followAuthUrl, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { body, zernio, zernioError } from '../helpers/zernio.js';

/*
 * The Core operations of today's contract (@zernio/node 0.2.881, only its baseURL changed): usage,
 * credential check, connected apps, the direct upload, the on-demand external sync and the metadata
 * update, each with what it did and its refusals (read-only and profile-scoped keys, another tenant).
 */

let e: OAuthE2E;
let apiKey: string;
let userId: string;
let sdk: Zernio;
let profileId: string;
let accountId: string;
const user = { id: 'coreOps1', username: 'coreOps1', name: 'Channel coreOps1' };

async function key(body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const res = await e.env.request(apiKey, 'POST', '/v1/api-keys', body);
  expect(res.status).toBe(201);
  return { id: res.body.apiKey.id ?? res.body.apiKey._id, key: res.body.apiKey.key };
}

beforeAll(async () => {
  e = await createOAuthE2E((now) => [youTubeSimulator({ now })]);
  ({ apiKey, userId } = await e.env.createUser());
  sdk = await zernio(e.env, apiKey);
  profileId = (await e.env.request(apiKey, 'POST', '/v1/profiles', { name: 'Core' })).body.profile._id;
  await sandboxCall(e.sandbox, 'POST', '/sandbox/youtube/_oauth/users', user);
  const start = (
    await e.env.request(
      apiKey,
      'GET',
      `/v1/connect/youtube?profileId=${profileId}&redirect_url=${encodeURIComponent(`${e.baseUrl}/health`)}`,
    )
  ).body;
  await followAuthUrl(`${start.authUrl}&login_hint=${user.id}`);
  accountId = (await e.env.request(apiKey, 'GET', `/v1/accounts?profileId=${profileId}`)).body.accounts[0]._id;
});
afterAll(async () => e?.close());

const yt = () => e.sandbox.state('youtube');
const now = () => e.env.clock.now().getTime();

describe('GET /v1/usage and GET /v1/auth/verify', () => {
  it('answers the usage snapshot, and {supported: false} for metering (no billing)', async () => {
    const snapshot = body(await sdk.usage.getUsage());
    const stats = (await e.env.request(apiKey, 'GET', '/v1/usage-stats')).body;
    expect(snapshot).toMatchObject({ ...stats, hasAccess: true });
    expect(body(await sdk.usage.getUsage({ query: { range: '30d', granularity: 'day' } }))).toEqual({
      supported: false,
      days: [],
    });
    const bad = await zernioError(sdk.usage.getUsage({ query: { range: 'forever' as any } }));
    expect(bad.statusCode).toBe(400);
  });

  it('verifies the API key of the request, and refuses a bad one with 401', async () => {
    expect(body(await sdk.apiKeys.verifyCredential())).toMatchObject({
      valid: true,
      userId,
      authType: 'api_key',
      scope: null,
    });
    const bad = await zernioError((await zernio(e.env, `sk_${'0'.repeat(64)}`)).apiKeys.verifyCredential());
    expect(bad.statusCode).toBe(401);
  });
});

describe('GET and DELETE /v1/me/connected-apps', () => {
  it("lists the caller's live keys as connected apps and revokes one, idempotently", async () => {
    const app = await key({ name: 'Assistant', permission: 'read' });
    const listed = body(await sdk.connectedapps.listConnectedApps()).connectedApps;
    expect(listed.find((a: any) => a.clientId === app.id)).toMatchObject({
      clientName: 'Assistant',
      scopes: ['read'],
      tokenCount: 1,
      redirectHost: null,
    });
    expect(body(await (await zernio(e.env, app.key)).apiKeys.verifyCredential()).valid).toBe(true);

    const revoked = body(await sdk.connectedapps.revokeConnectedApp({ path: { clientId: app.id } }));
    expect(revoked).toEqual({ revoked: true, clientId: app.id, revokedTokens: 1, invalidatedCodes: 0 });
    expect((await zernioError((await zernio(e.env, app.key)).apiKeys.verifyCredential())).statusCode).toBe(401);
    const again = body(await sdk.connectedapps.revokeConnectedApp({ path: { clientId: app.id } }));
    expect(again.revokedTokens).toBe(0);
    expect(body(await sdk.connectedapps.listConnectedApps()).connectedApps.map((a: any) => a.clientId)).not.toContain(
      app.id,
    );
  });

  it("refuses a profile-scoped key, another user's key and the calling key", async () => {
    const scoped = await key({ name: 'Scoped', scope: 'profiles', profileIds: [profileId] });
    const err = await zernioError((await zernio(e.env, scoped.key)).connectedapps.listConnectedApps());
    expect([err.statusCode, err.code]).toEqual([403, 'full_scope_key_required']);
    const other = await e.env.createUser();
    const stranger = await zernioError(
      (await zernio(e.env, other.apiKey)).connectedapps.revokeConnectedApp({ path: { clientId: scoped.id } }),
    );
    expect(stranger.statusCode).toBe(404);
    expect(body(await (await zernio(e.env, scoped.key)).apiKeys.verifyCredential()).valid).toBe(true);
    const self = body(await sdk.connectedapps.listConnectedApps()).connectedApps.find(
      (a: any) => a.clientName !== 'Scoped',
    );
    const own = await zernioError(sdk.connectedapps.revokeConnectedApp({ path: { clientId: self.clientId } }));
    expect([own.statusCode, own.code]).toEqual([400, 'current_credential']);
  });
});

describe('POST /v1/media/upload-direct', () => {
  it('stores a probed image and answers its public URL, which serves the same bytes', async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#08f' } })
      .png()
      .toBuffer();
    const res = body(
      await sdk.messages.uploadMediaDirect({ body: { file: new Blob([png], { type: 'image/png' }) } as any }),
    );
    expect(res).toMatchObject({ contentType: 'image/png', size: png.length });
    expect(res.filename).toMatch(/\.png$/);
    const served = await fetch(res.url);
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
  });

  it('refuses bytes that are not the image they claim, and a type presign refuses, storing nothing', async () => {
    const before = await e.env.ctx.db.kysely.selectFrom('media').select('key').execute();
    const fake = await zernioError(
      sdk.messages.uploadMediaDirect({
        body: { file: new Blob([Buffer.from('not an image')], { type: 'image/png' }) } as any,
      }),
    );
    expect([fake.statusCode, fake.code]).toEqual([400, 'unreadable_media']);
    const exe = await zernioError(
      sdk.messages.uploadMediaDirect({
        body: { file: new Blob([Buffer.from('MZ')], { type: 'application/x-msdownload' }) } as any,
      }),
    );
    expect([exe.statusCode, exe.code]).toEqual([400, 'content_type_not_allowed']);
    expect(await e.env.ctx.db.kysely.selectFrom('media').select('key').execute()).toHaveLength(before.length);
  });
});

describe('POST /v1/posts/sync-external', () => {
  it('finds a video made on the platform a moment ago, imports it, and debounces a second request', async () => {
    const videoId = externalYtVideo(yt(), user as any, 'Made on YouTube', now() - 60_000);
    const res = body(await sdk.analytics.syncExternalPosts({ body: { accountId, postId: videoId } }));
    expect(res.found).toBe(true);
    expect(res.post).toMatchObject({ platform: 'youtube', platformPostId: videoId });
    expect(res.synced).toMatchObject({ skipped: false });
    expect(res.synced.postsSynced).toBeGreaterThanOrEqual(1);
    const imported = await e.env.ctx.db.kysely
      .selectFrom('post_target')
      .select('platform_post_id')
      .where('platform_post_id', '=', videoId)
      .execute();
    expect(imported).toHaveLength(1);

    const again = body(
      await sdk.analytics.syncExternalPosts({
        body: { accountId, url: `https://www.youtube.com/watch?v=${videoId}` },
      }),
    );
    expect(again.synced.skipped).toBe(true);
    const missing = body(await sdk.analytics.syncExternalPosts({ body: { accountId, postId: 'nope' } }));
    expect([missing.found, missing.post]).toEqual([false, null]);
  });

  it("refuses another tenant's account and a read-only key", async () => {
    const other = await e.env.createUser();
    const err = await zernioError(
      (await zernio(e.env, other.apiKey)).analytics.syncExternalPosts({ body: { accountId } }),
    );
    expect(err.statusCode).toBe(404);
    const read = await key({ name: 'ro', permission: 'read' });
    const ro = await zernioError((await zernio(e.env, read.key)).analytics.syncExternalPosts({ body: { accountId } }));
    expect([ro.statusCode, ro.code]).toEqual([403, 'read_only_key']);
  });
});

describe('POST /v1/posts/{postId}/update-metadata', () => {
  it("updates a channel video's title, tags and privacy by its id (direct mode) on the simulator", async () => {
    const videoId = externalYtVideo(yt(), user as any, 'Old title', now() - 3_600_000);
    const res = body(
      await sdk.posts.updatePostMetadata({
        path: { postId: '_' },
        body: {
          platform: 'youtube',
          videoId,
          accountId,
          title: 'New title',
          tags: ['launch', 'herald'],
          privacyStatus: 'unlisted',
        },
      }),
    );
    expect(res).toMatchObject({ success: true, videoId });
    expect(res.updatedFields.sort()).toEqual(['privacyStatus', 'tags', 'title']);
    const seen = yt().posts.find((p) => p.id === videoId)!;
    expect(seen.extra).toMatchObject({ title: 'New title', tags: ['launch', 'herald'], privacyStatus: 'unlisted' });
  });

  it('refuses a request without a field, a title YouTube refuses and another platform, changing nothing', async () => {
    const videoId = externalYtVideo(yt(), user as any, 'Kept', now() - 3_600_000);
    const none = await zernioError(
      sdk.posts.updatePostMetadata({ path: { postId: '_' }, body: { platform: 'youtube', videoId, accountId } }),
    );
    expect(none.statusCode).toBe(400);
    const long = await zernioError(
      sdk.posts.updatePostMetadata({
        path: { postId: '_' },
        body: { platform: 'youtube', videoId, accountId, title: 'x'.repeat(101) },
      }),
    );
    expect(long.statusCode).toBe(400);
    const other = await zernioError(
      sdk.posts.updatePostMetadata({
        path: { postId: '_' },
        body: { platform: 'bluesky' as any, videoId, accountId, title: 'x' },
      }),
    );
    expect([other.statusCode, other.code]).toEqual([400, 'PLATFORM_LIMITATION']);
    expect(yt().posts.find((p) => p.id === videoId)!.extra!.title).toBe('Kept');
  });
});
