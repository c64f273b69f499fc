import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ZernioApiError } from '@getlatedev/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { solidImage } from '../fixtures/media.js';

let env: TestEnv;
let apiKey: string;
beforeAll(async () => {
  env = await createTestEnv();
  ({ apiKey } = await env.createUser());
});
afterAll(async () => env?.close());

async function presign(body: Record<string, unknown>) {
  const client = await env.sdk(apiKey);
  const res = await client.media.getMediaPresignedUrl({ body: body as any });
  if (res.error) throw Object.assign(new Error('presign failed'), { status: res.response.status, body: res.error });
  return res.data as { uploadUrl: string; publicUrl: string; key: string; type: string; expiresIn: number };
}

/** The SDK's view (it throws) and the wire body (code and fields). */
async function presignError(body: Record<string, unknown>) {
  const client = await env.sdk(apiKey);
  let sdkError: ZernioApiError | null = null;
  try {
    await client.media.getMediaPresignedUrl({ body: body as any });
  } catch (error) {
    if (!(error instanceof ZernioApiError)) throw error;
    sdkError = error;
  }
  expect(sdkError).not.toBeNull();
  const wire = await env.request(apiKey, 'POST', '/v1/media/presign', body);
  expect(sdkError!.statusCode).toBe(wire.status);
  expect(sdkError!.message).toBe(wire.body.error);
  return { status: wire.status, body: wire.body };
}

/** Bytes that read as a PDF (the `%PDF-` header), padded to `size` with random bytes. */
function pdfBytes(size: number): Buffer {
  const head = Buffer.from('%PDF-1.7\n');
  return Buffer.concat([head, randomBytes(size - head.length)]);
}

/** Waits for a side effect of work the server does after answering (or after its client left). */
async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Upload URLs name PUBLIC_URL; tests reach the same server on its loopback listener. */
async function toListener(url: string): Promise<string> {
  const base = await env.listen();
  const u = new URL(url);
  return base + u.pathname + u.search;
}

describe('POST /v1/media/presign', () => {
  it('returns an upload URL, a public URL, the key, the media type and the expiry through the SDK', async () => {
    const res = await presign({ filename: 'Holiday photo.PNG', contentType: 'image/png', size: 1234 });
    expect(res.type).toBe('image');
    expect(res.expiresIn).toBe(3600);
    expect(res.key).toMatch(/^[0-9a-f]{24}\/Holiday-photo\.png$/);
    expect(res.publicUrl).toBe(`${env.config.publicUrl}/v1/media/files/${res.key}`);
    expect(res.uploadUrl.startsWith(`${env.config.publicUrl}/v1/media/upload/${res.key}?`)).toBe(true);
    const row = await env.ctx.db.kysely
      .selectFrom('media')
      .selectAll()
      .where('key', '=', res.key)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      status: 'pending',
      content_type: 'image/png',
      type: 'image',
      declared_size: 1234,
      referenced: 0,
      storage: 'local',
    });
  });

  it('accepts the reference aliases and maps them to a canonical type', async () => {
    for (const [contentType, type, ext] of [
      ['image/jpg', 'image', 'jpg'],
      ['video/avi', 'video', 'avi'],
      ['video/x-m4v', 'video', 'm4v'],
      ['video/mpeg', 'video', 'mpeg'],
      ['application/pdf', 'document', 'pdf'],
    ]) {
      const res = await presign({ filename: 'a', contentType });
      expect(res.type).toBe(type);
      expect(res.key.endsWith(`.${ext}`)).toBe(true);
    }
  });

  it('refuses missing fields, a type not allowed and a size above 5 GB with clear 400s', async () => {
    const missing = await presignError({ filename: 'x.png' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('filename and contentType are required');
    expect(missing.body.details.fields).toEqual({ contentType: ['is required'] });

    const badType = await presignError({ filename: 'x.exe', contentType: 'application/x-msdownload' });
    expect(badType.status).toBe(400);
    expect(badType.body).toMatchObject({
      error: 'Content type not allowed: application/x-msdownload',
      code: 'content_type_not_allowed',
    });

    const tooBig = await presignError({ filename: 'big.mp4', contentType: 'video/mp4', size: 5 * 1024 ** 3 + 1 });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body).toMatchObject({ error: 'File too large. Maximum size is 5GB.', code: 'file_too_large' });
    expect(
      await env.ctx.db.kysely.selectFrom('media').select('key').where('filename', '=', 'big.mp4').execute(),
    ).toEqual([]);
  });

  it('needs an API key', async () => {
    const res = await env.request(null, 'POST', '/v1/media/presign', { filename: 'a.png', contentType: 'image/png' });
    expect(res.status).toBe(401);
  });
});

describe('PUT upload URL and GET public URL (local storage)', () => {
  it('stores the bytes, records the probe, and serves them back with ranges', async () => {
    const bytes = await solidImage(320, 240);
    const { uploadUrl, publicUrl, key } = await presign({
      filename: 'pic.png',
      contentType: 'image/png',
      size: bytes.length,
    });
    const put = await fetch(await toListener(uploadUrl), {
      method: 'PUT',
      headers: { 'content-type': 'image/png' },
      body: bytes,
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ key, size: bytes.length, message: 'Upload complete', warnings: [] });

    const file = path.join(env.config.dataDir, 'media', ...key.split('/'));
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    expect(fs.readdirSync(path.join(env.config.dataDir, 'media', '.tmp'))).toEqual([]);
    const row = await env.ctx.db.kysely
      .selectFrom('media')
      .selectAll()
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('uploaded');
    expect(row.size).toBe(bytes.length);
    expect(JSON.parse(row.probe!)).toMatchObject({ format: 'png', width: 320, height: 240 });

    const url = await toListener(publicUrl);
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('image/png');
    expect(whole.headers.get('content-length')).toBe(String(bytes.length));
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);

    const part = await fetch(url, { headers: { range: 'bytes=10-29' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-29/${bytes.length}`);
    expect(part.headers.get('content-length')).toBe('20');
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(10, 30))).toBe(true);

    const suffix = await fetch(url, { headers: { range: 'bytes=-5' } });
    expect(suffix.status).toBe(206);
    expect(Buffer.from(await suffix.arrayBuffer()).equals(bytes.subarray(bytes.length - 5))).toBe(true);

    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bytes.length));
    expect(head.headers.get('content-type')).toBe('image/png');
    expect(head.headers.get('x-content-type-options')).toBe('nosniff');

    const outside = await fetch(url, { headers: { range: `bytes=${bytes.length}-` } });
    expect(outside.status).toBe(416);
    expect(outside.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    expect(await outside.json()).toEqual({
      error: 'Requested range not satisfiable',
      code: 'range_not_satisfiable',
      details: { size: bytes.length },
    });

    expect((await fetch(url.replace(/\.png$/, '.jpg'))).status).toBe(404);
    // Escaping paths are a 404 and a malformed one a 400 (Fastify's), never a 500 or a file outside media/.
    for (const bad of [
      '..%2F..%2Fsecret.key',
      `${key.split('/')[0]}/..%2F..%2Fherald.sqlite`,
      `${key.split('/')[0]}/..%2Fsecret.key`,
    ]) {
      expect((await fetch(`${await env.listen()}/v1/media/files/${bad}`)).status).toBe(404);
    }
    expect((await fetch(`${await env.listen()}/v1/media/files/%E0%A4%A/x.png`)).status).toBe(400);
  });

  it('answers 403 to a tampered or expired URL and writes nothing', async () => {
    const bytes = await solidImage(50, 50);
    const { uploadUrl, key } = await presign({ filename: 'p.png', contentType: 'image/png' });
    const url = new URL(await toListener(uploadUrl));
    const put = (u: URL | string, type = 'image/png') =>
      fetch(u, { method: 'PUT', headers: { 'content-type': type }, body: bytes });

    const bigger = new URL(url);
    bigger.searchParams.set('maxSize', '999999999999');
    const r1 = await put(bigger);
    expect(r1.status).toBe(403);
    // The whole envelope, as every other answer has it.
    expect(await r1.json()).toEqual({
      error: expect.any(String),
      code: 'invalid_signature',
      details: expect.any(Object),
    });
    const unsafe = await put(new URL(url.toString().replace(key.split('/')[0], '..')));
    expect(unsafe.status).toBe(404);
    expect(await unsafe.json()).toEqual({
      error: expect.any(String),
      code: expect.any(String),
      details: expect.any(Object),
    });
    const wrongType = await fetch(url, { method: 'PUT', body: bytes, headers: { 'content-type': '' } });
    expect(Object.keys((await wrongType.json()) as object).sort()).toEqual(['code', 'details', 'error']);

    const otherKey = new URL(url.toString().replace(key.split('/')[0], 'f'.repeat(24)));
    expect((await put(otherKey)).status).toBe(403);

    const otherType = new URL(url);
    otherType.searchParams.set('contentType', 'image/gif');
    expect((await put(otherType, 'image/gif')).status).toBe(403);

    const badSig = new URL(url);
    badSig.searchParams.set('signature', '0'.repeat(64));
    expect((await put(badSig)).status).toBe(403);

    env.clock.advance(3600 * 1000 + 1);
    try {
      const late = await put(url);
      expect(late.status).toBe(403);
      expect(((await late.json()) as any).code).toBe('upload_url_expired');
    } finally {
      env.clock.advance(-(3600 * 1000 + 1));
    }
    expect(fs.existsSync(path.join(env.config.dataDir, 'media', ...key.split('/')))).toBe(false);
  });

  it('refuses a Content-Type other than the signed one', async () => {
    const bytes = await solidImage(50, 50);
    const { uploadUrl, key } = await presign({ filename: 'p.png', contentType: 'image/png' });
    const res = await fetch(await toListener(uploadUrl), {
      method: 'PUT',
      headers: { 'content-type': 'image/jpeg' },
      body: bytes,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).code).toBe('content_type_mismatch');
    expect(fs.existsSync(path.join(env.config.dataDir, 'media', ...key.split('/')))).toBe(false);
  });

  it('refuses a body larger than the declared size with 413, with or without Content-Length', async () => {
    const bytes = await solidImage(60, 60);
    const { uploadUrl, key } = await presign({ filename: 'p.png', contentType: 'image/png', size: 100 });
    const url = await toListener(uploadUrl);
    const withLength = await fetch(url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: bytes });
    expect(withLength.status).toBe(413);
    expect(((await withLength.json()) as any).code).toBe('file_too_large');

    // A chunked body has no Content-Length: the limit is enforced while streaming.
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(bytes.subarray(0, 80));
        controller.enqueue(bytes.subarray(80));
        controller.close();
      },
    });
    const streamed = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'image/png' },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(fs.existsSync(path.join(env.config.dataDir, 'media', ...key.split('/')))).toBe(false);
    expect(fs.readdirSync(path.join(env.config.dataDir, 'media', '.tmp'))).toEqual([]);
  });

  it('refuses a body shorter than the declared size and stores nothing under the key', async () => {
    const bytes = pdfBytes(3000);
    const { uploadUrl, key } = await presign({
      filename: 'doc.pdf',
      contentType: 'application/pdf',
      size: bytes.length,
    });
    const url = await toListener(uploadUrl);
    const file = path.join(env.config.dataDir, 'media', ...key.split('/'));

    // A Content-Length other than the declared size is refused before the body is read.
    const shortLength = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'application/pdf' },
      body: bytes.subarray(0, 1000),
    });
    expect(shortLength.status).toBe(400);
    expect(await shortLength.json()).toEqual({
      error: `Content-Length is 1000 but ${bytes.length} bytes were declared at presign`,
      code: 'size_mismatch',
      details: { expected: bytes.length, received: 1000 },
    });

    // A chunked body has no Content-Length: its size is checked once it has arrived, before the rename.
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(bytes.subarray(0, 1000));
        controller.enqueue(bytes.subarray(1000, 2000));
        controller.close();
      },
    });
    const shortBody = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'application/pdf' },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    expect(shortBody.status).toBe(400);
    expect(await shortBody.json()).toMatchObject({
      code: 'size_mismatch',
      details: { expected: bytes.length, received: 2000 },
    });
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.readdirSync(path.join(env.config.dataDir, 'media', '.tmp'))).toEqual([]);
    const row = await env.ctx.db.kysely
      .selectFrom('media')
      .select(['status', 'size'])
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'pending', size: null });

    const full = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/pdf' }, body: bytes });
    expect(full.status).toBe(200);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });

  it('leaves nothing under the key, and no temp file, when the client goes away mid-upload', async () => {
    const bytes = pdfBytes(256 * 1024);
    const { uploadUrl, key } = await presign({
      filename: 'gone.pdf',
      contentType: 'application/pdf',
      size: bytes.length,
    });
    const url = new URL(await toListener(uploadUrl));
    const tmpDir = path.join(env.config.dataDir, 'media', '.tmp');
    const head = `PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/pdf\r\nContent-Length: ${bytes.length}\r\n\r\n`;
    // Half the body, then the connection drops: once straight away (the server may not be reading the
    // body yet), once after the server has started writing it.
    for (const waitForWrite of [false, true]) {
      const socket = net.connect(Number(url.port), url.hostname);
      await once(socket, 'connect');
      socket.write(head);
      socket.write(bytes.subarray(0, bytes.length / 2));
      if (waitForWrite) await until(() => fs.existsSync(tmpDir) && fs.readdirSync(tmpDir).length > 0);
      socket.destroy();
    }
    const file = path.join(env.config.dataDir, 'media', ...key.split('/'));
    await until(() => fs.readdirSync(tmpDir).length === 0);
    expect(fs.existsSync(file)).toBe(false);
    const row = await env.ctx.db.kysely
      .selectFrom('media')
      .select(['status', 'size'])
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'pending', size: null });

    // A complete upload after both: the URL still works, and by its end the server has seen both drops.
    const ok = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/pdf' }, body: bytes });
    expect(ok.status).toBe(200);
    await until(() => fs.readdirSync(tmpDir).length === 0);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });

  it('refuses bytes that are not the image they claim to be', async () => {
    const { uploadUrl, key } = await presign({ filename: 'fake.png', contentType: 'image/png' });
    const res = await fetch(await toListener(uploadUrl), {
      method: 'PUT',
      headers: { 'content-type': 'image/png' },
      body: 'not a png at all',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).code).toBe('unreadable_media');
    expect((await fetch(await toListener(`${env.config.publicUrl}/v1/media/files/${key}`))).status).toBe(404);
  });

  it('refuses a second PUT to a completed upload with 409: the file is served as immutable', async () => {
    const png = await solidImage(8, 8);
    const other = await solidImage(16, 16);
    const { uploadUrl, key, publicUrl } = await presign({ filename: 'keep.png', contentType: 'image/png' });
    const url = await toListener(uploadUrl);
    const file = path.join(env.config.dataDir, 'media', ...key.split('/'));
    const first = await fetch(url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: png });
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const served = await fetch(await toListener(publicUrl));
    expect(served.headers.get('cache-control')).toContain('immutable');
    await served.arrayBuffer();

    // The signed URL stays valid for an hour, but what caches were told never changes cannot change.
    for (const body of [other, 'not a png at all']) {
      const again = await fetch(url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body });
      expect(again.status).toBe(409);
      expect(await again.json()).toEqual({ error: expect.any(String), code: 'upload_complete', details: { key } });
    }
    expect(fs.readFileSync(file).equals(png)).toBe(true);
    expect(fs.readdirSync(path.join(env.config.dataDir, 'media', '.tmp'))).toEqual([]);
    const row = await env.ctx.db.kysely
      .selectFrom('media')
      .select(['status', 'size'])
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'uploaded', size: png.length });
  });

  it('refuses a PDF whose bytes are not a PDF, and stores nothing', async () => {
    const bytes = randomBytes(2000);
    const { uploadUrl, key } = await presign({
      filename: 'fake.pdf',
      contentType: 'application/pdf',
      size: bytes.length,
    });
    const res = await fetch(await toListener(uploadUrl), {
      method: 'PUT',
      headers: { 'content-type': 'application/pdf' },
      body: bytes,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'unreadable_media', details: { key } });
    expect(fs.existsSync(path.join(env.config.dataDir, 'media', ...key.split('/')))).toBe(false);
    const row = await env.ctx.db.kysely
      .selectFrom('media')
      .select(['status', 'size'])
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'pending', size: null });

    const real = pdfBytes(2000);
    const ok = await fetch(await toListener(uploadUrl), {
      method: 'PUT',
      headers: { 'content-type': 'application/pdf' },
      body: real,
    });
    expect(ok.status).toBe(200);
  });

  it('keeps JSON-only parsing everywhere else', async () => {
    const res = await env.request(apiKey, 'POST', '/v1/media/presign', 'filename=a', { 'content-type': 'text/plain' });
    expect(res.status).toBe(415);
  });
});
