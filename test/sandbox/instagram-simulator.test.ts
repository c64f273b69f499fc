import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { instagramSimulator } from '../../src/sandbox/instagram/index.js';
import { solidImage } from '../fixtures/media.js';
import { startSandbox, type SandboxServer } from '../../src/sandbox/server.js';

/*
 * The Instagram simulator (content publishing through Facebook Login) on the Graph core: containers from
 * URLs Graph fetches itself, processing, media_publish once FINISHED, the daily quota, and Meta's specs
 * refusing what the media edge does not define.
 */

let sandbox: SandboxServer;
let media: http.Server;
let mediaBase = '';
let jpegSize = 0;
let clock = Date.now();
const BASE = '/sandbox/instagram';
const APP = '100000000000001';
const REDIRECT = 'https://herald.example/callback';

beforeAll(async () => {
  sandbox = await startSandbox([instagramSimulator({ now: () => new Date(clock) })]);
  const jpeg = await solidImage(40, 40, 'jpeg');
  jpegSize = jpeg.length;
  const png = await solidImage(40, 40, 'png');
  media = http.createServer((req, res) => {
    if (req.url === '/missing.jpg') return void res.writeHead(404).end();
    const video = req.url?.endsWith('.mp4');
    const image = req.url?.endsWith('.png') ? png : jpeg;
    res
      .writeHead(200, { 'content-type': video ? 'video/mp4' : req.url?.endsWith('.png') ? 'image/png' : 'image/jpeg' })
      .end(video ? Buffer.alloc(5000, 1) : image);
  });
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
  mediaBase = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => media.close(() => r()));
  await sandbox?.close();
});
beforeEach(async () => {
  await fetch(`${sandbox.url}${BASE}/_reset`, { method: 'POST' });
  await call('POST', '/_config', { processingMs: 30_000 });
});

async function call(method: string, path: string, json?: unknown, token?: string) {
  const headers: Record<string, string> = json === undefined ? {} : { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${sandbox.url}${BASE}${path}`, {
    method,
    headers,
    body: json === undefined ? undefined : JSON.stringify(json),
    redirect: 'manual',
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function login(user = 'igSim1') {
  const dialog = await fetch(
    `${sandbox.url}${BASE}/v24.0/dialog/oauth?client_id=${APP}&redirect_uri=${encodeURIComponent(REDIRECT)}&state=s&login_hint=${user}`,
    { redirect: 'manual' },
  );
  const code = new URL(dialog.headers.get('location')!).searchParams.get('code')!;
  const short = await call(
    'GET',
    `/v24.0/oauth/access_token?client_id=${APP}&client_secret=x&redirect_uri=${encodeURIComponent(REDIRECT)}&code=${code}`,
  );
  const long = await call(
    'GET',
    `/v24.0/oauth/access_token?grant_type=fb_exchange_token&client_id=${APP}&client_secret=x&fb_exchange_token=${short.body.access_token}`,
  );
  const token = long.body.access_token as string;
  const pages = (await call('GET', '/v24.0/me/accounts?fields=id,name,instagram_business_account', undefined, token))
    .body.data;
  return { token, ig: pages[0].instagram_business_account.id as string };
}

describe('Instagram content publishing', () => {
  it('finds the professional account through the Page, publishes an image container once, and comments under it', async () => {
    const { token, ig } = await login();
    // Followers are what the sandbox's _metrics set for the account (else a number derived from its id).
    expect((await call('POST', '/_metrics', { postId: ig, metrics: { followers: 500 } })).status).toBe(200);
    expect((await call('GET', `/v24.0/${ig}?fields=username,followers_count`, undefined, token)).body).toEqual({
      id: ig,
      username: 'igsim1_ig1',
      followers_count: 500,
    });
    const c = await call(
      'POST',
      `/v24.0/${ig}/media`,
      { image_url: `${mediaBase}/a.jpg`, caption: 'hello', user_tags: [{ username: 'friend', x: 0.5, y: 0.2 }] },
      token,
    );
    expect((await call('GET', `/v24.0/${c.body.id}?fields=status_code`, undefined, token)).body).toEqual({
      id: c.body.id,
      status_code: 'FINISHED',
    });
    const m = await call('POST', `/v24.0/${ig}/media_publish`, { creation_id: c.body.id }, token);
    expect(m.body).toEqual({ id: expect.stringMatching(/^\d+$/) });
    const again = await call('POST', `/v24.0/${ig}/media_publish`, { creation_id: c.body.id }, token);
    expect(again.body.error).toMatchObject({ code: 9007 });
    await call('POST', `/v24.0/${m.body.id}/comments`, { message: 'first' }, token);
    expect((await call('GET', '/_inspect')).body.posts).toMatchObject([
      {
        id: m.body.id,
        text: 'hello',
        destination: ig,
        media: [{ type: 'image', size: jpegSize }],
        extra: { kind: 'IMAGE', comments: [{ text: 'first' }] },
      },
    ]);
    expect(
      (await call('GET', `/v24.0/${ig}/content_publishing_limit?fields=quota_usage,config`, undefined, token)).body
        .data,
    ).toEqual([{ quota_usage: 1, config: { quota_total: 100, quota_duration: 86400 } }]);
  });

  it('keeps a reel IN_PROGRESS for processingMs: media_publish before is 9007/2207027, after it publishes', async () => {
    const { token, ig } = await login();
    const c = await call(
      'POST',
      `/v24.0/${ig}/media`,
      {
        media_type: 'REELS',
        video_url: `${mediaBase}/r.mp4`,
        caption: 'reel',
        share_to_feed: true,
        thumb_offset: '1500',
        audio_name: 'Tune',
        trial_params: { graduation_strategy: 'MANUAL' },
      },
      token,
    );
    expect((await call('GET', `/v24.0/${c.body.id}?fields=status_code`, undefined, token)).body.status_code).toBe(
      'IN_PROGRESS',
    );
    const early = await call('POST', `/v24.0/${ig}/media_publish`, { creation_id: c.body.id }, token);
    expect(early.body.error).toMatchObject({ code: 9007, error_subcode: 2207027 });
    clock += 30_000;
    const m = await call('POST', `/v24.0/${ig}/media_publish`, { creation_id: c.body.id }, token);
    expect((await call('GET', '/_inspect')).body.posts).toMatchObject([
      {
        id: m.body.id,
        extra: {
          kind: 'REELS',
          share_to_feed: true,
          thumb_offset: '1500',
          audio_name: 'Tune',
          trial_params: { graduation_strategy: 'MANUAL' },
        },
      },
    ]);
  });

  it('makes a carousel of 2 to 10 finished items; 11 children, 4 collaborators, an unknown parameter and an unreachable URL are refused', async () => {
    const { token, ig } = await login();
    const item = async () =>
      (await call('POST', `/v24.0/${ig}/media`, { image_url: `${mediaBase}/i.jpg`, is_carousel_item: true }, token))
        .body.id as string;
    const items = [];
    for (let i = 0; i < 11; i++) items.push(await item());
    const eleven = await call(
      'POST',
      `/v24.0/${ig}/media`,
      { media_type: 'CAROUSEL', children: items.join(','), caption: 'too many' },
      token,
    );
    expect(eleven.body.error).toMatchObject({ code: 100, error_subcode: 2207030 });
    const carousel = await call(
      'POST',
      `/v24.0/${ig}/media`,
      { media_type: 'CAROUSEL', children: items.slice(0, 3), caption: 'three' },
      token,
    );
    const m = await call('POST', `/v24.0/${ig}/media_publish`, { creation_id: carousel.body.id }, token);
    expect((await call('GET', '/_inspect')).body.posts).toMatchObject([
      { id: m.body.id, text: 'three', media: [{ type: 'image' }, { type: 'image' }, { type: 'image' }] },
    ]);
    const crowd = await call(
      'POST',
      `/v24.0/${ig}/media`,
      { image_url: `${mediaBase}/i.jpg`, collaborators: ['a', 'b', 'c', 'd'] },
      token,
    );
    expect(crowd.body.error).toMatchObject({ code: 100 });
    const unknown = await call(
      'POST',
      `/v24.0/${ig}/media`,
      { image_url: `${mediaBase}/i.jpg`, filter_name: 'clarendon' },
      token,
    );
    expect(unknown.body.error).toMatchObject({
      code: 100,
      type: 'OAuthException',
      message: expect.stringContaining('filter_name'),
    });
    const gone = await call('POST', `/v24.0/${ig}/media`, { image_url: `${mediaBase}/missing.jpg` }, token);
    expect(gone.body.error).toMatchObject({ code: 9004, error_subcode: 2207052 });
    // JPEG is the only image format Instagram publishes: a PNG is refused, by its bytes.
    const png = await call('POST', `/v24.0/${ig}/media`, { image_url: `${mediaBase}/photo.png` }, token);
    expect(png).toMatchObject({
      status: 400,
      body: {
        error: { code: 9004, error_subcode: 2207052, message: 'Only photo or video can be accepted as media type.' },
      },
    });
    expect((await call('POST', `/v24.0/${ig}/media`, { image_url: `${mediaBase}/photo.jpg` }, token)).status).toBe(200);
  });
});

describe('Instagram Login', () => {
  const form = (fields: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });

  async function igLogin(user: string) {
    const dialog = await fetch(
      `${sandbox.url}${BASE}/oauth/authorize?client_id=ig-app&redirect_uri=${encodeURIComponent(REDIRECT)}&response_type=code&scope=instagram_business_basic,instagram_business_content_publish&state=s&login_hint=${user}`,
      { redirect: 'manual' },
    );
    expect(dialog.status).toBe(302);
    return new URL(dialog.headers.get('location')!).searchParams.get('code')!;
  }

  it('exchanges the code once on the form endpoint, then for a 60-day token that acts as the professional account and renews once a day old', async () => {
    const code = await igLogin('igLoginSim1');
    const fields = {
      client_id: 'ig-app',
      client_secret: 's',
      grant_type: 'authorization_code',
      redirect_uri: REDIRECT,
      code,
    };
    const wrong = await fetch(
      `${sandbox.url}${BASE}/oauth/access_token`,
      form({ ...fields, redirect_uri: 'https://other.example/cb' }),
    );
    expect([wrong.status, ((await wrong.json()) as any).error_type]).toEqual([400, 'OAuthException']);
    const res = await fetch(`${sandbox.url}${BASE}/oauth/access_token`, form(fields));
    const short = ((await res.json()) as any).data[0];
    expect(short).toMatchObject({
      access_token: expect.any(String),
      user_id: expect.stringMatching(/^\d+$/),
      permissions: 'instagram_business_basic,instagram_business_content_publish',
    });
    expect((await fetch(`${sandbox.url}${BASE}/oauth/access_token`, form(fields))).status).toBe(400);

    const long = await call(
      'GET',
      `/access_token?grant_type=ig_exchange_token&client_secret=s&access_token=${short.access_token}`,
    );
    expect(long.body).toMatchObject({ token_type: 'bearer', expires_in: 60 * 24 * 3600 });
    const me = await call('GET', '/v24.0/me?fields=id,username', undefined, long.body.access_token);
    expect(me.body).toEqual({ id: short.user_id, username: 'igloginsim1_ig1' });
    const container = await call(
      'POST',
      `/v24.0/${short.user_id}/media`,
      { image_url: `${mediaBase}/a.jpg`, caption: 'own token' },
      long.body.access_token,
    );
    expect(container.status).toBe(200);
    // Another account's edges stay closed to this token.
    const other = await login('igLoginSim2');
    expect(
      (await call('POST', `/v24.0/${other.ig}/media`, { image_url: `${mediaBase}/a.jpg` }, long.body.access_token)).body
        .error.code,
    ).toBe(10);

    const early = await call(
      'GET',
      `/refresh_access_token?grant_type=ig_refresh_token&access_token=${long.body.access_token}`,
    );
    expect(early.status).toBe(400);
    clock += 25 * 3600_000;
    const renewed = await call(
      'GET',
      `/refresh_access_token?grant_type=ig_refresh_token&access_token=${long.body.access_token}`,
    );
    expect(renewed.body).toMatchObject({ access_token: expect.any(String), expires_in: 60 * 24 * 3600 });
    expect(renewed.body.access_token).not.toBe(long.body.access_token);
  });
});
