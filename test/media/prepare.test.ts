import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMedia } from '../../src/domain/media/check.js';
import { prepareRequestMedia } from '../../src/domain/media/prepare.js';
import { parseRange } from '../../src/domain/media/range.js';
import { PlatformError, type PublishRequest } from '../../src/platforms/types.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { noiseImage } from '../fixtures/media.js';

/*
 * The check the engine runs right before publishing: external URLs are looked at with a HEAD (or a
 * one-byte ranged GET when HEAD gives no length), as the platform will fetch them.
 */

let env: TestEnv;
let origin: http.Server;
let base: string;
const seen: string[] = [];
let bigPng: Buffer;

beforeAll(async () => {
  bigPng = await noiseImage(800, 700, 'png');
  // External media in these tests is served on loopback: OUTBOUND_ALLOW_PRIVATE (development) lets Herald fetch it.
  env = await createTestEnv({ env: { OUTBOUND_ALLOW_PRIVATE: '1' } });
  origin = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.range ?? ''}`.trim());
    if (req.url === '/gone.jpg') return void res.writeHead(404).end();
    if (req.url === '/busy.jpg') return void res.writeHead(503).end();
    if (req.url === '/big.png') {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': bigPng.length });
      return void res.end(req.method === 'HEAD' ? undefined : bigPng);
    }
    if (req.url === '/small.jpg')
      return void res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': 50_000 }).end();
    if (req.url === '/no-head.mp4') {
      // Answers HEAD without a length; the ranged GET tells the size in Content-Range.
      if (req.method === 'HEAD') return void res.writeHead(200, { 'content-type': 'video/mp4' }).end();
      return void res
        .writeHead(206, { 'content-type': 'video/mp4', 'content-range': 'bytes 0-0/60000000', 'content-length': 1 })
        .end('x');
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await env?.close();
  await new Promise((r) => origin?.close(r));
});

const request = (urls: Array<{ type: 'image' | 'video'; url: string }>): PublishRequest => ({
  account: {
    accountId: 'a',
    platformUserId: 'p',
    username: 'u',
    accessToken: 't',
    refreshToken: null,
    tokenExpiresAt: null,
    metadata: {},
  },
  content: 'hello',
  media: urls,
  threadItems: [],
  platformSpecificData: {},
  idempotencyKey: 'k',
});

async function failure(p: Promise<unknown>): Promise<PlatformError> {
  try {
    await p;
  } catch (error) {
    if (error instanceof PlatformError) return error;
    throw error;
  }
  throw new Error('expected a PlatformError');
}

describe('prepareRequestMedia (before publishing)', () => {
  it('passes an external URL within the limits, filling its size and type from a HEAD', async () => {
    const out = await prepareRequestMedia(
      env.ctx,
      'tenant',
      'bluesky',
      request([{ type: 'image', url: `${base}/small.jpg` }]),
    );
    expect(out.media[0]).toMatchObject({ url: `${base}/small.jpg`, size: 50_000, mimeType: 'image/jpeg' });
    expect(seen).toContain('HEAD /small.jpg');
  });

  it('compresses an external image above the threshold into a copy Herald serves (cleaned up after 7 days)', async () => {
    expect(bigPng.length).toBeGreaterThan(1_000_000);
    const out = await prepareRequestMedia(
      env.ctx,
      'tenant-x',
      'bluesky',
      request([{ type: 'image', url: `${base}/big.png` }]),
    );
    const media = out.media[0];
    expect(media.url.startsWith(`${env.config.publicUrl}/v1/media/files/`)).toBe(true);
    expect(media.mimeType).toBe('image/jpeg');
    expect(media.size).toBeLessThanOrEqual(1_000_000);
    const key = media.url.split('/v1/media/files/')[1];
    const row = await env.ctx.db.kysely
      .selectFrom('media')
      .selectAll()
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      tenant_id: 'tenant-x',
      status: 'uploaded',
      referenced: 0,
      size: media.size,
      content_type: 'image/jpeg',
    });
    const served = await env.app.inject({ method: 'GET', url: `/v1/media/files/${key}` });
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.length).toBe(media.size);
  });

  it('fails for good on a URL the platform could not fetch (4xx) or above its limit', async () => {
    const gone = await failure(
      prepareRequestMedia(env.ctx, 'tenant', 'twitter', request([{ type: 'image', url: `${base}/gone.jpg` }])),
    );
    expect(gone.kind).toBe('rejected');
    expect(gone.message).toMatch(/answered 404/);
    // HEAD without a length: a one-byte ranged GET gives the size (60 MB video > Bluesky's 50 MB).
    const video = await failure(
      prepareRequestMedia(env.ctx, 'tenant', 'bluesky', request([{ type: 'video', url: `${base}/no-head.mp4` }])),
    );
    expect(video.kind).toBe('rejected');
    expect(seen).toContain('GET /no-head.mp4 bytes=0-0');
  });

  it('retries later on a 5xx, and leaves a host it cannot reach to the platform', async () => {
    const busy = await failure(
      prepareRequestMedia(env.ctx, 'tenant', 'twitter', request([{ type: 'image', url: `${base}/busy.jpg` }])),
    );
    expect(busy.kind).toBe('unavailable');
    const closed = `http://127.0.0.1:1/unreachable.jpg`;
    const out = await prepareRequestMedia(env.ctx, 'tenant', 'twitter', request([{ type: 'image', url: closed }]));
    expect(out.media[0].url).toBe(closed);
  });

  it('refuses an upload URL of Herald that is not an upload of this tenant', async () => {
    const url = `${env.config.publicUrl}/v1/media/files/${'a'.repeat(24)}/x.png`;
    const err = await failure(prepareRequestMedia(env.ctx, 'tenant', 'twitter', request([{ type: 'image', url }])));
    expect(err.kind).toBe('rejected');
  });
});

describe('pure helpers', () => {
  it('parses single byte ranges like RFC 9110', () => {
    expect(parseRange(undefined, 100)).toBeNull();
    expect(parseRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=50-500', 100)).toEqual({ start: 50, end: 99 });
    expect(parseRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=9-3', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=0-1,5-6', 100)).toBeNull();
    expect(parseRange('items=0-1', 100)).toBeNull();
  });

  it('treats a size over a compression threshold as fine for uploads only', () => {
    const facts = { kind: 'image' as const, contentType: 'image/jpeg', size: 7 * 1024 * 1024, probe: null };
    expect(checkMedia('twitter', {}, { ...facts, local: true }, false)).toEqual([]);
    expect(checkMedia('twitter', {}, { ...facts, local: false }, false).map((i) => i.rule)).toEqual(['media_size']);
    // Instagram feed images must be between 4:5 and 1.91:1.
    const tall = {
      ...facts,
      size: 1000,
      local: true,
      probe: {
        format: 'jpeg',
        width: 1000,
        height: 2000,
        durationSec: null,
        videoCodec: null,
        audioCodec: null,
        skipped: null,
      },
    };
    expect(checkMedia('instagram', {}, tall, false).map((i) => i.rule)).toEqual(['media_aspect']);
  });
});
