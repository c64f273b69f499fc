import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pinterestOpenApi } from '../../src/sandbox/pinterest/openapi.js';
import { pinterestSimulator } from '../../src/sandbox/pinterest/index.js';
import { startSandbox, type SandboxServer } from '../../src/sandbox/server.js';

/*
 * The Pinterest simulator on its own: OAuth with Basic client authentication, boards, pins by image URL
 * and by video (register, S3 form upload, processing), delete, and the official OpenAPI document
 * checking every request and answer.
 */

let sandbox: SandboxServer;
let images: http.Server;
let imageBase: string;
const BASE = '/sandbox/pinterest';
const BASIC = `Basic ${Buffer.from('client-1:secret-1').toString('base64')}`;

beforeAll(async () => {
  sandbox = await startSandbox([pinterestSimulator()]);
  images = http.createServer((req, res) => {
    if (req.url === '/photo.png')
      return void res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(1234, 1));
    if (req.url === '/page.html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => images.listen(0, '127.0.0.1', r));
  imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => images.close(() => r()));
  await sandbox?.close();
});
beforeEach(async () => {
  await call('POST', `${BASE}/_reset`, {});
});

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const isForm = body instanceof URLSearchParams || body instanceof FormData;
  const res = await fetch(sandbox.url + path, {
    method,
    headers: body === undefined || isForm ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : isForm ? (body as RequestInit['body']) : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // S3's XML stays text.
  }
  return { status: res.status, body: parsed };
}

/** Consent (auto-approved) and the code exchange, as an app with Basic client authentication. */
async function connect(): Promise<Record<string, string>> {
  const q = new URLSearchParams({
    client_id: 'client-1',
    redirect_uri: 'http://127.0.0.1:9/cb',
    response_type: 'code',
    scope: 'boards:read,pins:read,pins:write,user_accounts:read',
    state: 's1',
  });
  const consent = await fetch(`${sandbox.url}${BASE}/oauth/?${q}`, { redirect: 'manual' });
  const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
  const token = await call(
    'POST',
    `${BASE}/v5/oauth/token`,
    new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:9/cb' }),
    { authorization: BASIC },
  );
  expect(token.status).toBe(200);
  expect(token.body).toMatchObject({
    token_type: 'bearer',
    response_type: 'authorization_code',
    expires_in: 2_592_000,
    refresh_token: expect.any(String),
  });
  return { authorization: `Bearer ${token.body.access_token}`, refresh: token.body.refresh_token };
}

async function boardId(auth: Record<string, string>): Promise<string> {
  return (await call('GET', `${BASE}/v5/boards?page_size=250`, undefined, auth)).body.items[0].id;
}

const inspect = async () => (await call('GET', `${BASE}/_inspect`)).body.posts as any[];

describe('Pinterest simulator', () => {
  it('authenticates the app with HTTP Basic only, refreshes with a new refresh token, and refuses a dead grant with code 283', async () => {
    const auth = await connect();
    const bodyAuth = await call(
      'POST',
      `${BASE}/v5/oauth/token`,
      new URLSearchParams({ grant_type: 'refresh_token', refresh_token: auth.refresh, client_id: 'client-1' }),
    );
    expect(bodyAuth).toMatchObject({ status: 401, body: { code: 2 } });
    const refreshed = await call(
      'POST',
      `${BASE}/v5/oauth/token`,
      new URLSearchParams({ grant_type: 'refresh_token', refresh_token: auth.refresh }),
      { authorization: BASIC },
    );
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject({
      response_type: 'refresh_token',
      refresh_token: expect.any(String),
      refresh_token_expires_in: 5_184_000,
    });
    expect(refreshed.body.refresh_token).not.toBe(auth.refresh);
    const again = await call(
      'POST',
      `${BASE}/v5/oauth/token`,
      new URLSearchParams({ grant_type: 'refresh_token', refresh_token: auth.refresh }),
      { authorization: BASIC },
    );
    expect(again).toEqual({ status: 401, body: { code: 283, message: 'The authorization grant is invalid' } });
    const badGrant = await call('POST', `${BASE}/v5/oauth/token`, new URLSearchParams({ grant_type: 'password' }), {
      authorization: BASIC,
    });
    expect(badGrant.status).toBe(400);
    expect(badGrant.body.message).toMatch(/grant_type/);
  });

  it('shows the consenting user with a numeric id and two boards, stable for the same login', async () => {
    const auth = await connect();
    const me = await call('GET', `${BASE}/v5/user_account`, undefined, auth);
    expect(me.body).toMatchObject({
      id: expect.stringMatching(/^\d+$/),
      username: 'sandbox_pinterest',
      board_count: 2,
    });
    const boards = (await call('GET', `${BASE}/v5/boards`, undefined, auth)).body.items;
    expect(boards).toHaveLength(2);
    expect(boards.map((b: any) => b.id)).toEqual(
      (await call('GET', `${BASE}/v5/boards`, undefined, await connect())).body.items.map((b: any) => b.id),
    );
    expect((await call('GET', `${BASE}/v5/boards`)).body).toEqual({ code: 2, message: 'Authentication failed.' });
  });

  it('refuses requests that break the OpenAPI document with Pinterest 400 code 1, and records nothing', async () => {
    const auth = await connect();
    const board = await boardId(auth);
    const image = { source_type: 'image_url', url: `${imageBase}/photo.png` };
    const cases: [string, string, unknown, RegExp][] = [
      ['POST', '/v5/pins', { board_id: 'my-board', media_source: image }, /'board_id' must match pattern/],
      [
        'POST',
        '/v5/pins',
        { board_id: board, title: 't'.repeat(101), media_source: image },
        /'title' must NOT have more than 100 characters/,
      ],
      ['POST', '/v5/pins', { board_id: board, media_source: { source_type: 'video_id' } }, /media_source/],
      ['POST', '/v5/pins', { board_id: board, media_source: { source_type: 'image_url', url: 42 } }, /media_source/],
      ['GET', '/v5/boards?page_size=500', undefined, /'page_size' must be <= 250/],
      ['GET', '/v5/boards?sort=newest', undefined, /Unexpected parameter: sort/],
      ['POST', '/v5/media', { media_type: 'audio' }, /'media_type' must be equal to one of the allowed values/],
      ['DELETE', '/v5/pins/abc', undefined, /'pin_id' must match pattern/],
    ];
    for (const [method, path, body, message] of cases) {
      const res = await call(method, `${BASE}${path}`, body, auth);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body.code).toBe(1);
      expect(res.body.message).toMatch(message);
    }
    expect(await inspect()).toEqual([]);
  });

  it('checks its own answers against the document: a Pin without its numeric id is not a Pin', () => {
    const check = pinterestOpenApi().response('post', '/pins', 201)!;
    expect(check({ id: '123', title: 'ok', board_id: '456' })).toEqual([]);
    expect(check({ id: 'pin-1' })).not.toEqual([]);
    expect(check({ title: 'no id' })).not.toEqual([]);
    expect(pinterestOpenApi().response('delete', '/pins/{pin_id}', 204)!({ deleted: true })).not.toEqual([]);
  });

  it('creates an image pin by fetching its URL, on the board, and deletes it', async () => {
    const auth = await connect();
    const board = await boardId(auth);
    const res = await call(
      'POST',
      `${BASE}/v5/pins`,
      {
        board_id: board,
        title: 'Launch',
        description: 'Our launch',
        link: 'https://herald.example/launch',
        alt_text: 'a rocket',
        media_source: { source_type: 'image_url', url: `${imageBase}/photo.png` },
      },
      auth,
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^\d+$/),
      board_id: board,
      title: 'Launch',
      media: { media_type: 'image' },
    });
    expect(await inspect()).toEqual([
      expect.objectContaining({
        id: res.body.id,
        text: 'Our launch',
        destination: board,
        media: [
          { type: 'image', url: `${imageBase}/photo.png`, mimeType: 'image/png', size: 1234, altText: 'a rocket' },
        ],
        extra: expect.objectContaining({ title: 'Launch', link: 'https://herald.example/launch' }),
      }),
    ]);
    const listed = await call('GET', `${BASE}/v5/boards/${board}/pins?page_size=25`, undefined, auth);
    expect(listed.body.items.map((p: any) => p.id)).toEqual([res.body.id]);
    expect((await call('DELETE', `${BASE}/v5/pins/${res.body.id}`, undefined, auth)).status).toBe(204);
    expect((await inspect())[0].deleted).toBe(true);
    expect(await call('DELETE', `${BASE}/v5/pins/${res.body.id}`, undefined, auth)).toEqual({
      status: 404,
      body: { code: 50, message: 'Pin not found.' },
    });
  });

  it('refuses a pin without media, on another board, or with an image it cannot fetch', async () => {
    const auth = await connect();
    const board = await boardId(auth);
    expect(await call('POST', `${BASE}/v5/pins`, { board_id: board, title: 'no media' }, auth)).toMatchObject({
      status: 400,
      body: { code: 1 },
    });
    expect(
      await call(
        'POST',
        `${BASE}/v5/pins`,
        { board_id: '12345', media_source: { source_type: 'image_url', url: `${imageBase}/photo.png` } },
        auth,
      ),
    ).toMatchObject({ status: 404, body: { code: 40 } });
    expect(
      await call(
        'POST',
        `${BASE}/v5/pins`,
        { board_id: board, media_source: { source_type: 'image_url', url: `${imageBase}/missing.png` } },
        auth,
      ),
    ).toMatchObject({ status: 400 });
    expect(
      await call(
        'POST',
        `${BASE}/v5/pins`,
        { board_id: board, media_source: { source_type: 'image_url', url: `${imageBase}/page.html` } },
        auth,
      ),
    ).toMatchObject({ status: 400 });
    expect(await inspect()).toEqual([]);
  });

  it('takes a video through registration, the S3 form, processing and a pin with a cover', async () => {
    const auth = await connect();
    const board = await boardId(auth);
    await call('POST', `${BASE}/_config`, { processingMs: 60_000 });
    const reg = await call('POST', `${BASE}/v5/media`, { media_type: 'video' }, auth);
    expect(reg.status).toBe(201);
    expect(reg.body).toMatchObject({
      media_id: expect.stringMatching(/^\d+$/),
      media_type: 'video',
      upload_url: expect.stringContaining('/pinterest-media-upload/'),
    });
    const upload = new URL(reg.body.upload_url).pathname;
    const form = (fields: Record<string, string>, withFile = true) => {
      const f = new FormData();
      for (const [k, v] of Object.entries(fields)) f.append(k, v);
      if (withFile) f.append('file', new Blob([Buffer.alloc(4096, 2)], { type: 'video/mp4' }), 'clip.mp4');
      return f;
    };
    const altered = await call(
      'POST',
      upload,
      form({ ...reg.body.upload_parameters, key: `${reg.body.upload_parameters.key}x` }),
    );
    expect(altered.status).toBe(403);
    const tampered = await call(
      'POST',
      upload,
      form({ ...reg.body.upload_parameters, 'x-amz-signature': '0'.repeat(64) }),
    );
    expect(tampered.body).toContain('SignatureDoesNotMatch');
    expect((await call('POST', upload, form(reg.body.upload_parameters, false))).status).toBe(400);
    expect((await call('GET', `${BASE}/v5/media/${reg.body.media_id}`, undefined, auth)).body.status).toBe(
      'registered',
    );
    expect((await call('POST', upload, form(reg.body.upload_parameters))).status).toBe(204);
    expect((await call('GET', `${BASE}/v5/media/${reg.body.media_id}`, undefined, auth)).body).toEqual({
      media_id: reg.body.media_id,
      media_type: 'video',
      status: 'processing',
    });
    const early = await call(
      'POST',
      `${BASE}/v5/pins`,
      {
        board_id: board,
        media_source: { source_type: 'video_id', media_id: reg.body.media_id, cover_image_key_frame_time: 1 },
      },
      auth,
    );
    expect(early).toMatchObject({ status: 400, body: { message: expect.stringMatching(/processing/) } });

    await call('POST', `${BASE}/_config`, { processingMs: 0 });
    const reg2 = await call('POST', `${BASE}/v5/media`, { media_type: 'video' }, auth);
    expect((await call('POST', new URL(reg2.body.upload_url).pathname, form(reg2.body.upload_parameters))).status).toBe(
      204,
    );
    expect((await call('GET', `${BASE}/v5/media/${reg2.body.media_id}`, undefined, auth)).body.status).toBe(
      'succeeded',
    );
    const noCover = await call(
      'POST',
      `${BASE}/v5/pins`,
      { board_id: board, media_source: { source_type: 'video_id', media_id: reg2.body.media_id } },
      auth,
    );
    expect(noCover).toMatchObject({ status: 400, body: { message: expect.stringMatching(/cover_image/) } });
    const pin = await call(
      'POST',
      `${BASE}/v5/pins`,
      {
        board_id: board,
        title: 'Clip',
        media_source: { source_type: 'video_id', media_id: reg2.body.media_id, cover_image_key_frame_time: 2 },
      },
      auth,
    );
    expect(pin.status).toBe(201);
    expect(pin.body.media).toMatchObject({ media_type: 'video' });
    expect(await inspect()).toEqual([
      expect.objectContaining({
        id: pin.body.id,
        destination: board,
        media: [{ type: 'video', url: `media:${reg2.body.media_id}`, mimeType: 'video/mp4', size: 4096 }],
        extra: expect.objectContaining({ cover: { keyFrameTime: 2 } }),
      }),
    ]);
  });

  it('fails processing, uploads, publishes, deletes and board lists as told', async () => {
    const auth = await connect();
    const board = await boardId(auth);
    await call('POST', `${BASE}/_config`, { processingMs: 0 });
    await call('POST', `${BASE}/_faults`, { kind: 'rejected', count: 1, op: 'processing' });
    const reg = await call('POST', `${BASE}/v5/media`, { media_type: 'video' }, auth);
    const f = new FormData();
    for (const [k, v] of Object.entries(reg.body.upload_parameters as Record<string, string>)) f.append(k, v);
    f.append('file', new Blob([Buffer.alloc(10)]), 'clip.mp4');
    await call('POST', new URL(reg.body.upload_url).pathname, f);
    expect((await call('GET', `${BASE}/v5/media/${reg.body.media_id}`, undefined, auth)).body.status).toBe('failed');

    const image = { board_id: board, media_source: { source_type: 'image_url', url: `${imageBase}/photo.png` } };
    await call('POST', `${BASE}/_faults`, { kind: 'rate_limited', count: 1, op: 'upload' });
    expect((await call('POST', `${BASE}/v5/pins`, image, auth)).status).toBe(429);
    await call('POST', `${BASE}/_faults`, { kind: 'unavailable', count: 1, op: 'publish' });
    expect((await call('POST', `${BASE}/v5/pins`, image, auth)).status).toBe(503);
    await call('POST', `${BASE}/_faults`, { kind: 'unavailable', count: 1, op: 'destinations' });
    expect((await call('GET', `${BASE}/v5/boards`, undefined, auth)).status).toBe(503);
    expect(await inspect()).toEqual([]);
    const pin = await call('POST', `${BASE}/v5/pins`, image, auth);
    await call('POST', `${BASE}/_faults`, { kind: 'rate_limited', count: 1, op: 'delete' });
    expect((await call('DELETE', `${BASE}/v5/pins/${pin.body.id}`, undefined, auth)).status).toBe(429);
    expect((await inspect())[0].deleted).toBeUndefined();
  });
});
