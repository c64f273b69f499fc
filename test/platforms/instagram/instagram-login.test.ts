import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshAccountTokens } from '../../../src/domain/accounts/refresh-tokens.js';
import { instagramSimulator } from '../../../src/sandbox/instagram/index.js';
import { solidImage } from '../../fixtures/media.js';
import { createOAuthE2E, followAuthUrl, type OAuthE2E } from '../../helpers/oauth-e2e.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';
import { body, zernio, zernioError } from '../../helpers/zernio.js';

/*
 * Instagram Login (INSTAGRAM_LOGIN=instagram) through the official SDK against the simulator: the dialog
 * on instagram.com, the code exchanged on api.instagram.com then for a 60-day token on graph.instagram.com
 * (ig_exchange_token), the account itself as the one profile (no Page), an image published once with its
 * own token, and the long-lived token renewed (ig_refresh_token) once a day old.
 */

let e: OAuthE2E;
const data = (res: { data?: unknown }) => res.data as any;
const inspect = async () => (await sandboxCall(e.sandbox, 'GET', '/sandbox/instagram/_inspect')).posts as any[];

beforeAll(async () => {
  e = await createOAuthE2E((now) => [instagramSimulator({ now })], { env: { INSTAGRAM_LOGIN: 'instagram' } });
});
afterAll(async () => e?.close());

describe('Instagram Login end to end through the official SDK', () => {
  it('connects the professional account itself, publishes an image once with its token, and renews the 60-day token', async () => {
    const { apiKey } = await e.env.createUser();
    const sdk = await e.env.sdk(apiKey);
    const profile = data(await sdk.profiles.createProfile({ body: { name: 'Instagram Login' } })).profile;
    const start = data(
      await sdk.connect.getConnectUrl({
        path: { platform: 'instagram' },
        query: { profileId: profile._id, redirect_url: `${e.baseUrl}/health` },
      }),
    );
    const authUrl = new URL(start.authUrl);
    expect(authUrl.pathname).toBe('/sandbox/instagram/oauth/authorize');
    expect(authUrl.searchParams.get('scope')!.split(',')).toEqual([
      'instagram_business_basic',
      'instagram_business_content_publish',
      'instagram_business_manage_comments',
      'instagram_business_manage_messages',
    ]);
    expect(authUrl.searchParams.get('response_type')).toBe('code');
    await followAuthUrl(`${start.authUrl}&login_hint=igLogin1`);
    const [account] = data(await sdk.accounts.listAccounts({ query: { profileId: profile._id } })).accounts;
    expect(account).toMatchObject({
      platform: 'instagram',
      username: 'iglogin1_ig1',
      isActive: true,
      metadata: { igUsername: 'iglogin1_ig1' },
    });
    const igUserId = account.metadata.igUserId as string;
    const row = await e.env.ctx.db.kysely
      .selectFrom('account')
      .selectAll()
      .where('account_id', '=', account._id)
      .executeTakeFirstOrThrow();
    const days = (Date.parse(String(row.token_expires_at)) - e.env.clock.now().getTime()) / 86_400_000;
    expect(Math.round(days)).toBe(60);

    const bytes = await solidImage(800, 800, 'jpeg');
    const presigned = data(
      await sdk.media.getMediaPresignedUrl({
        body: { filename: 'login.jpg', contentType: 'image/jpeg', size: bytes.length },
      }),
    );
    expect(
      (await fetch(presigned.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: bytes }))
        .status,
    ).toBe(200);
    const res = await sdk.posts.createPost({
      body: {
        content: 'Posted with Instagram Login',
        publishNow: true,
        mediaItems: [{ type: 'image', url: presigned.publicUrl }],
        platforms: [{ platform: 'instagram', accountId: account._id, platformSpecificData: { firstComment: 'hello' } }],
      },
    });
    expect(res.response.status, JSON.stringify(res.error ?? null)).toBe(201);
    await e.runner.drain();
    const posted = (await inspect()).filter((p) => p.text === 'Posted with Instagram Login');
    expect(posted).toMatchObject([
      {
        destination: igUserId,
        media: [{ type: 'image', size: bytes.length }],
        extra: { kind: 'IMAGE', comments: [{ text: 'hello' }] },
      },
    ]);
    const after = data(await sdk.posts.getPost({ path: { postId: data(res).post._id } })).post;
    expect(after.platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: posted[0].id,
      platformPostUrl: `https://www.instagram.com/p/${posted[0].id.slice(-11)}/`,
    });

    // A day later the long-lived token renews itself for 60 more days.
    e.env.clock.advance(2 * 86_400_000);
    expect(await refreshAccountTokens(e.env.ctx, row)).toBe('refreshed');
    const renewed = await e.env.ctx.db.kysely
      .selectFrom('account')
      .selectAll()
      .where('account_id', '=', account._id)
      .executeTakeFirstOrThrow();
    expect(renewed.access_token).not.toBe(row.access_token);
    expect(Math.round((Date.parse(String(renewed.token_expires_at)) - e.env.clock.now().getTime()) / 86_400_000)).toBe(
      60,
    );
  });

  it('hands a headless connection its code (no account to select), reads the publishing limit with its own token, and refuses audio as PLATFORM_LIMITATION', async () => {
    const { apiKey } = await e.env.createUser();
    const client = await zernio(e.env, apiKey);
    const profileId = body(await client.profiles.createProfile({ body: { name: 'Instagram Login extras' } })).profile
      ._id;
    const app = `${e.baseUrl}/health`;
    const start = (
      await e.env.request(
        apiKey,
        'GET',
        `/v1/connect/instagram?profileId=${profileId}&headless=true&redirect_url=${encodeURIComponent(app)}`,
      )
    ).body;
    const handoff = (await followAuthUrl(`${start.authUrl}&login_hint=igLogin2`)).searchParams;
    expect(handoff.get('step')).toBeNull();
    expect(handoff.get('code')).toBeTruthy();
    const exchanged = await e.env.request(apiKey, 'POST', '/v1/connect/instagram', {
      code: handoff.get('code'),
      state: handoff.get('state'),
      profileId,
    });
    expect(exchanged.status).toBeLessThan(300);
    const [account] = body(await client.accounts.listAccounts({ query: { profileId } })).accounts;
    expect(body(await client.instagram.getInstagramPublishingLimit({ path: { accountId: account._id } }))).toEqual({
      quotaUsage: 0,
      quotaTotal: 100,
      quotaDurationSeconds: 86_400,
    });
    const calls = () => e.sandbox.state('instagram').calls.length;
    const before = calls();
    for (const call of [
      () => client.instagram.searchInstagramAudio({ path: { accountId: account._id }, query: { audioType: 'music' } }),
      () => client.instagram.getInstagramAudio({ path: { accountId: account._id, audioId: '17900000000000000' } }),
    ]) {
      const err = await zernioError(call());
      expect(err.statusCode).toBe(400);
      expect(err.body).toMatchObject({
        code: 'PLATFORM_LIMITATION',
        details: { reason: 'instagram_audio_requires_facebook_login' },
      });
      expect(err.message).toMatch(/Facebook Login/);
    }
    expect(calls()).toBe(before);
  });
});
