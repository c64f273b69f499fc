import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboundFailureMessage } from '../../src/lib/outbound.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { solidImage } from '../fixtures/media.js';

const MB = 1024 * 1024;

/** A loopback origin: /video.mp4 says 200 MB by HEAD, /page is HTML, anything else 404. Counts requests. */
let origin: http.Server;
let originUrl: string;
let hits = 0;

let guarded: TestEnv;
let open: TestEnv;
beforeAll(async () => {
  guarded = await createTestEnv();
  // Development setting: Herald may fetch loopback URLs (the origin below lives there).
  open = await createTestEnv({ env: { OUTBOUND_ALLOW_PRIVATE: '1' } });
  origin = http.createServer((req, res) => {
    hits++;
    if (req.url === '/video.mp4')
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(200 * MB) });
    else if (req.url === '/page') res.writeHead(200, { 'content-type': 'text/html', 'content-length': '5' });
    else res.writeHead(404, { 'content-length': '0' });
    res.end();
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await guarded?.close();
  await open?.close();
  await new Promise((r) => origin?.close(r));
});

async function upload(env: TestEnv, apiKey: string, bytes: Buffer): Promise<string> {
  const sdk = await env.sdk(apiKey);
  const { uploadUrl, publicUrl } = (
    await sdk.media.getMediaPresignedUrl({
      body: { filename: 'p.png', contentType: 'image/png', size: bytes.length } as any,
    })
  ).data as any;
  const u = new URL(uploadUrl);
  const put = await fetch((await env.listen()) + u.pathname + u.search, {
    method: 'PUT',
    headers: { 'content-type': 'image/png' },
    body: bytes,
  });
  expect(put.status).toBeLessThan(300);
  return publicUrl;
}

describe('POST /v1/tools/validate/media', () => {
  it("judges one of Herald's uploads from its record through the SDK, and refuses another tenant's", async () => {
    const { apiKey } = await guarded.createUser();
    const bytes = await solidImage(640, 480);
    const url = await upload(guarded, apiKey, bytes);
    const sdk = await guarded.sdk(apiKey);
    const res = (await sdk.validate.validateMedia({ body: { url } })).data as any;
    expect(res).toMatchObject({ valid: true, url, contentType: 'image/png', size: bytes.length, type: 'image' });
    expect(res.sizeFormatted).toMatch(/^\d+ (B|KB)$/);
    expect(res.platformLimits.twitter).toEqual({
      limit: 5 * MB,
      limitFormatted: '5.0 MB',
      withinLimit: true,
      errors: [],
    });
    expect(Object.values(res.platformLimits).every((p: any) => p.withinLimit)).toBe(true);

    const other = await guarded.createUser();
    const theirs = await guarded.request(other.apiKey, 'POST', '/v1/tools/validate/media', { url });
    expect(theirs.status).toBe(200);
    expect(theirs.body).toEqual({ valid: false, url, error: 'This media URL is not an upload of this account' });
  });

  it('refuses a private-address URL through the outbound guard, without fetching it', async () => {
    const { apiKey } = await guarded.createUser();
    const before = hits;
    for (const url of [`${originUrl}/video.mp4`, 'http://10.0.0.1/x.jpg', 'http://169.254.169.254/latest/meta-data']) {
      const res = await guarded.request(apiKey, 'POST', '/v1/tools/validate/media', { url });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ valid: false, url, error: outboundFailureMessage(url) });
    }
    expect(hits).toBe(before);
  });

  it("checks an external URL's type and size (HEAD) against each platform's limits when the guard allows it", async () => {
    const { apiKey } = await open.createUser();
    const video = await open.request(apiKey, 'POST', '/v1/tools/validate/media', { url: `${originUrl}/video.mp4` });
    expect(video.body).toMatchObject({
      valid: true,
      contentType: 'video/mp4',
      size: 200 * MB,
      sizeFormatted: '200.0 MB',
      type: 'video',
    });
    // X takes videos up to 8 GB; Bluesky's limit is far below 200 MB, and an external video is never compressed.
    expect(video.body.platformLimits.twitter).toMatchObject({ withinLimit: true });
    expect(video.body.platformLimits.bluesky).toMatchObject({
      withinLimit: false,
      errors: [expect.stringContaining('bluesky accepts at most')],
    });

    const page = await open.request(apiKey, 'POST', '/v1/tools/validate/media', { url: `${originUrl}/page` });
    expect(page.body).toMatchObject({
      valid: false,
      type: 'unknown',
      contentType: 'text/html',
      error: expect.stringContaining('text/html'),
    });
    expect(page.body).not.toHaveProperty('platformLimits');
    const missing = await open.request(apiKey, 'POST', '/v1/tools/validate/media', { url: `${originUrl}/gone.jpg` });
    expect(missing.body).toEqual({
      valid: false,
      url: `${originUrl}/gone.jpg`,
      error: 'The media URL answered HTTP 404',
    });
  });

  it('answers bad input with a 400 envelope', async () => {
    const { apiKey } = await guarded.createUser();
    for (const body of [{}, { url: 42 }, { url: 'ftp://example.com/a.jpg' }, { url: 'not a url' }]) {
      const res = await guarded.request(apiKey, 'POST', '/v1/tools/validate/media', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({
        error: expect.any(String),
        code: 'validation_error',
        details: { fields: expect.any(Object) },
      });
    }
  });
});
