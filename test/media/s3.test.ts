import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openLocalMedia } from '../../src/domain/media/open.js';
import { s3Settings } from '../../src/storage/config.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { requireFfmpeg, solidImage, testVideo } from '../fixtures/media.js';

/*
 * The S3 driver against s3rver on loopback. s3rver does not check presigned signatures the way S3 does
 * (it serves whatever the URL names), so these tests show the flow: a real SigV4 presigned PUT made by
 * the AWS SDK, the object landing in the bucket with its content type, Herald reading it back with
 * ranges. The signature itself is verified in s3-signature.test.ts by recomputing it.
 */

let s3: S3rver;
let s3Dir: string;
let env: TestEnv;
let apiKey: string;

beforeAll(async () => {
  s3Dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-s3rver-'));
  s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: s3Dir,
    configureBuckets: [{ name: 'herald-media', configs: [] }],
  });
  const addr = (await s3.run()) as AddressInfo;
  env = await createTestEnv({
    env: {
      S3_BUCKET: 'herald-media',
      S3_ENDPOINT: `http://127.0.0.1:${addr.port}`,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    },
  });
  ({ apiKey } = await env.createUser());
});
afterAll(async () => {
  await env?.close();
  await s3?.close();
  fs.rmSync(s3Dir, { recursive: true, force: true });
});

describe('S3-compatible storage (S3_BUCKET set)', () => {
  it('presigns a real S3 PUT, and Herald serves the object back with ranges and probes it', async () => {
    const client = await env.sdk(apiKey);
    const bytes = await solidImage(300, 200);
    const res = await client.media.getMediaPresignedUrl({ body: { filename: 'cloud.png', contentType: 'image/png' } });
    const presigned = res.data as any;
    const upload = new URL(presigned.uploadUrl);
    expect(upload.origin).toBe(env.config.env.S3_ENDPOINT);
    expect(upload.pathname).toBe(`/herald-media/${presigned.key}`);
    expect(upload.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(upload.searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host');
    expect(presigned.publicUrl).toBe(`${env.config.publicUrl}/v1/media/files/${presigned.key}`);
    const row = await env.ctx.db.kysely
      .selectFrom('media')
      .selectAll()
      .where('key', '=', presigned.key)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ storage: 's3', status: 'pending' });

    const put = await fetch(presigned.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'image/png' },
      body: bytes,
    });
    expect(put.status).toBe(200);
    const stored = fs.readdirSync(path.join(s3Dir, 'herald-media'), { recursive: true }).map(String);
    expect(stored.some((f) => f.includes('cloud.png'))).toBe(true);

    // Herald proxies the object (no S3_PUBLIC_URL): whole, ranged, HEAD.
    const base = await env.listen();
    const url = `${base}/v1/media/files/${presigned.key}`;
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
    const part = await fetch(url, { headers: { range: 'bytes=4-11' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 4-11/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(4, 12))).toBe(true);

    // The dry run of a post learns of the upload (S3 PUTs bypass Herald): probed and marked uploaded.
    const check = await env.request(apiKey, 'POST', '/v1/tools/validate/post', {
      content: 'from s3',
      mediaItems: [{ type: 'image', url: presigned.publicUrl }],
      platforms: [{ platform: 'facebook' }],
    });
    expect(check.status).toBe(200);
    expect(check.body.valid).toBe(true);
    const after = await env.ctx.db.kysely
      .selectFrom('media')
      .selectAll()
      .where('key', '=', presigned.key)
      .executeTakeFirstOrThrow();
    expect(after.status).toBe('uploaded');
    expect(after.size).toBe(bytes.length);
    expect(JSON.parse(after.probe!)).toMatchObject({ format: 'png', width: 300, height: 200 });

    // Adapters get the bytes from the bucket, streamed.
    const opened = await openLocalMedia(env.ctx, { type: 'image', url: presigned.publicUrl });
    const chunks: Buffer[] = [];
    for await (const c of opened!.stream) chunks.push(Buffer.from(c as Buffer));
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    expect(opened!.contentType).toBe('image/png');
  });

  it('probes a video in the bucket over a presigned GET (ffprobe reads it with ranges)', async () => {
    requireFfmpeg();
    const file = path.join(s3Dir, 'clip.mp4');
    expect(testVideo(file, { seconds: 2, width: 320, height: 240 })).toBe(true);
    const bytes = fs.readFileSync(file);
    const presigned = (
      await env.request(apiKey, 'POST', '/v1/media/presign', {
        filename: 'clip.mp4',
        contentType: 'video/mp4',
        size: bytes.length,
      })
    ).body;
    const put = await fetch(presigned.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'video/mp4', 'content-length': String(bytes.length) },
      body: bytes,
    });
    expect(put.status).toBe(200);
    const check = await env.request(apiKey, 'POST', '/v1/tools/validate/post', {
      content: 'clip',
      mediaItems: [{ type: 'video', url: presigned.publicUrl }],
      platforms: [{ platform: 'snapchat' }],
    });
    expect(check.body.errors.map((e: { rule: string }) => e.rule)).toContain('media_duration');
    const row = await env.ctx.db.kysely
      .selectFrom('media')
      .selectAll()
      .where('key', '=', presigned.key)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.probe!)).toMatchObject({ width: 320, height: 240, videoCodec: 'h264' });
  });

  it('refuses the same checks at presign as local storage', async () => {
    const res = await env.request(apiKey, 'POST', '/v1/media/presign', { filename: 'a.bmp', contentType: 'image/bmp' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Content type not allowed: image/bmp');
  });

  it('refuses a bad S3 setting, listing every problem (checked when the routes are built, at start)', () => {
    expect(() =>
      s3Settings(loadConfig({ S3_BUCKET: 'b', S3_ENDPOINT: 'ftp://nope', S3_ACCESS_KEY_ID: 'only-the-id' })),
    ).toThrow(
      /S3_ENDPOINT must be an http\(s\) URL[\s\S]*S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together/,
    );
  });
});
