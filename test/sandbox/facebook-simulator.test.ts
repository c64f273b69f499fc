import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { facebookSimulator } from '../../src/sandbox/facebook/index.js';
import { startSandbox, type SandboxServer } from '../../src/sandbox/server.js';

/*
 * The Facebook simulator and the Graph core under it, in Graph's own wire format: Meta's specs refuse
 * what the edge does not define, Facebook Login issues short then long-lived user tokens and Page
 * tokens, and a Page's video is processed before it is ready.
 */

let sandbox: SandboxServer;
let clock = Date.now();
const BASE = '/sandbox/facebook';
const APP = '100000000000001';
const REDIRECT = 'https://herald.example/callback';

beforeAll(async () => {
  sandbox = await startSandbox([facebookSimulator({ now: () => new Date(clock) })]);
});
afterAll(async () => sandbox?.close());
beforeEach(async () => {
  await fetch(`${sandbox.url}${BASE}/_reset`, { method: 'POST' });
});

async function call(
  method: string,
  path: string,
  opts: {
    token?: string;
    json?: unknown;
    form?: Record<string, string>;
    body?: RequestInit['body'];
    headers?: Record<string, string>;
  } = {},
) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `OAuth ${opts.token}`;
  let body = opts.body;
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.json);
  } else if (opts.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(opts.form).toString();
  }
  const res = await fetch(`${sandbox.url}${BASE}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

/** Facebook Login: the dialog's code, the short-lived token, the long-lived one, the Pages with their tokens. */
async function login(user = 'fbSim1') {
  const dialog = await fetch(
    `${sandbox.url}${BASE}/v24.0/dialog/oauth?client_id=${APP}&redirect_uri=${encodeURIComponent(REDIRECT)}&state=s1&scope=pages_show_list,pages_manage_posts&login_hint=${user}`,
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
  const pages = await call('GET', '/v24.0/me/accounts?fields=id,name,access_token', { token: long.body.access_token });
  return {
    code,
    short: short.body,
    long: long.body,
    pages: pages.body.data as { id: string; name: string; access_token: string }[],
  };
}

const graphError = {
  error: {
    message: expect.stringMatching(/^\(#100\) /),
    type: 'OAuthException',
    code: 100,
    fbtrace_id: expect.any(String),
  },
};

describe("the Graph core holds every call to Meta's specs", () => {
  it("refuses a parameter the edge does not define, in Graph's error shape, and publishes nothing", async () => {
    const { pages } = await login();
    const res = await call('POST', `/v24.0/${pages[0].id}/feed`, {
      token: pages[0].access_token,
      json: { message: 'hi', colour: 'blue' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject(graphError);
    expect(res.body.error.message).toContain('colour');
    expect((await call('GET', '/_inspect')).body.posts).toEqual([]);
  });

  it('refuses a missing required parameter, a value of the wrong type and an enum value outside the list', async () => {
    const { pages } = await login();
    const token = pages[0].access_token;
    const missing = await call('POST', `/v24.0/${pages[0].id}/video_reels`, { token, json: {} });
    expect(missing.body).toMatchObject(graphError);
    expect(missing.body.error.message).toBe('(#100) The parameter upload_phase is required');
    const type = await call('POST', `/v24.0/${pages[0].id}/feed`, {
      token,
      form: { message: 'hi', published: 'maybe' },
    });
    expect(type.body.error.message).toBe('(#100) Param published must be a boolean.');
    const outside = await call('POST', `/v24.0/${pages[0].id}/video_reels`, {
      token,
      json: { upload_phase: 'middle' },
    });
    expect(outside.body.error.message).toMatch(/^\(#100\) Param upload_phase must be one of \{FINISH, START\}/);
    // Graph takes enum values in any case: the docs' `start` is the specs' `START`.
    const ok = await call('POST', `/v24.0/${pages[0].id}/video_reels`, { token, json: { upload_phase: 'start' } });
    expect(ok.body).toEqual({
      video_id: expect.stringMatching(/^\d{15}$/),
      upload_url: expect.stringContaining('/video-upload/v24.0/'),
    });
  });

  it('refuses a field the node does not define and answers only the fields asked for', async () => {
    const { long, pages } = await login();
    const bad = await call('GET', `/v24.0/${pages[0].id}?fields=name,follower_colour`, { token: long.access_token });
    expect(bad.body.error.message).toBe(
      '(#100) Tried accessing nonexisting field (follower_colour) on node type (Page)',
    );
    const good = await call('GET', `/v24.0/${pages[0].id}?fields=name,fan_count`, { token: long.access_token });
    expect(good.body).toEqual({ id: pages[0].id, name: pages[0].name, fan_count: 1000 });
  });

  it('serves versioned paths, refuses a version it does not have, and sends unversioned calls to the default', async () => {
    const { long } = await login();
    const gone = await call('GET', '/v99.0/me', { token: long.access_token });
    expect(gone.body.error).toMatchObject({ code: 2635 });
    expect((await call('GET', '/me?fields=id', { token: long.access_token })).status).toBe(200);
  });

  it('takes form, JSON and multipart bodies', async () => {
    const { pages } = await login();
    const [page] = pages;
    const form = await call('POST', `/v24.0/${page.id}/feed`, {
      token: page.access_token,
      form: { message: 'as a form' },
    });
    const json = await call('POST', `/v24.0/${page.id}/feed`, {
      token: page.access_token,
      json: { message: 'as JSON', link: 'https://example.com/' },
    });
    const multipart = new FormData();
    multipart.set('published', 'false');
    multipart.set('source', new Blob([new Uint8Array([0xff, 0xd8, 0xff, 1, 2, 3])], { type: 'image/jpeg' }), 'a.jpg');
    const photo = await call('POST', `/v24.0/${page.id}/photos`, { token: page.access_token, body: multipart });
    const attached = await call('POST', `/v24.0/${page.id}/feed`, {
      token: page.access_token,
      form: { message: 'with a photo', attached_media: JSON.stringify([{ media_fbid: photo.body.id }]) },
    });
    for (const r of [form, json, attached])
      expect(r.body).toEqual({ id: expect.stringMatching(new RegExp(`^${page.id}_\\d+$`)) });
    const posts = (await call('GET', '/_inspect')).body.posts;
    expect(posts.map((p: any) => [p.text, p.destination, p.media.length])).toEqual([
      ['as a form', page.id, 0],
      ['as JSON', page.id, 0],
      ['with a photo', page.id, 1],
    ]);
    // An unpublished photo attaches once.
    const again = await call('POST', `/v24.0/${page.id}/feed`, {
      token: page.access_token,
      json: { message: 'again', attached_media: [{ media_fbid: photo.body.id }] },
    });
    expect(again.status).toBe(400);
  });
});

describe('Facebook Login and Page tokens', () => {
  it('issues a short-lived user token for the code, a long-lived one in exchange, and app-scoped ids stable per login', async () => {
    const first = await login('fbSame');
    expect(first.short).toEqual({ access_token: expect.any(String), token_type: 'bearer', expires_in: 7200 });
    expect(first.long).toEqual({ access_token: expect.any(String), token_type: 'bearer', expires_in: 60 * 24 * 3600 });
    expect(first.pages).toHaveLength(2);
    const reuse = await call(
      'GET',
      `/v24.0/oauth/access_token?client_id=${APP}&client_secret=x&redirect_uri=${encodeURIComponent(REDIRECT)}&code=${first.code}`,
    );
    expect(reuse.body.error).toMatchObject({ code: 100, error_subcode: 36009 });
    const second = await login('fbSame');
    expect(second.pages.map((p) => p.id)).toEqual(first.pages.map((p) => p.id));
  });

  it("refuses to publish as a Page with a user token, and a revoked token is Graph's 190", async () => {
    const { long, pages } = await login();
    const asUser = await call('POST', `/v24.0/${pages[0].id}/feed`, {
      token: long.access_token,
      json: { message: 'hi' },
    });
    expect(asUser.body.error).toMatchObject({ code: 200 });
    await call('POST', '/_oauth/revoke', { json: {} });
    const revoked = await call('POST', `/v24.0/${pages[0].id}/feed`, {
      token: pages[0].access_token,
      json: { message: 'hi' },
    });
    expect(revoked.status).toBe(400);
    expect(revoked.body.error).toMatchObject({ type: 'OAuthException', code: 190 });
  });
});

describe('Page video', () => {
  it('takes the bytes through a resumable session, then processes the video for processingMs', async () => {
    await call('POST', '/_config', { json: { processingMs: 60_000 } });
    const { long, pages } = await login();
    const page = pages[0];
    const session = await call('POST', `/v24.0/${APP}/uploads?file_name=v.mp4&file_length=10&file_type=video/mp4`, {
      token: long.access_token,
    });
    expect(session.body.id).toMatch(/^upload:/);
    const part = await call('POST', `/v24.0/${session.body.id}`, {
      token: long.access_token,
      headers: { file_offset: '0', 'content-type': 'application/octet-stream' },
      body: new Uint8Array(4),
    });
    expect(part.body).toEqual({ id: session.body.id, file_offset: 4 });
    const wrong = await call('POST', `/v24.0/${session.body.id}`, {
      token: long.access_token,
      headers: { file_offset: '0', 'content-type': 'application/octet-stream' },
      body: new Uint8Array(6),
    });
    expect(wrong.status).toBe(400);
    expect((await call('GET', `/v24.0/${session.body.id}`, { token: long.access_token })).body.file_offset).toBe(4);
    const done = await call('POST', `/v24.0/${session.body.id}`, {
      token: long.access_token,
      headers: { file_offset: '4', 'content-type': 'application/octet-stream' },
      body: new Uint8Array(6),
    });
    const video = await call('POST', `/v24.0/${page.id}/videos`, {
      token: page.access_token,
      json: { fbuploader_video_file_chunk: done.body.h, description: 'a video' },
    });
    const status = async () =>
      (await call('GET', `/v24.0/${video.body.id}?fields=status`, { token: page.access_token })).body.status
        .video_status;
    expect(await status()).toBe('processing');
    clock += 60_000;
    expect(await status()).toBe('ready');
    await call('DELETE', `/v24.0/${video.body.id}`, { token: page.access_token });
    expect((await call('GET', '/_inspect')).body.posts).toMatchObject([
      { id: video.body.id, text: 'a video', deleted: true, media: [{ type: 'video', size: 10 }] },
    ]);
  });
});
