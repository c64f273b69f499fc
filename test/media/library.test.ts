import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { solidImage } from '../fixtures/media.js';
import { fakeMp4 } from '../helpers/mp4.js';

/* The media library: GET /v1/media lists a tenant's uploads, DELETE /v1/media/{id} removes an unused one. */

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => env?.close());

const fileOf = (key: string) => path.join(env.config.dataDir, 'media', ...key.split('/'));

async function upload(apiKey: string, name: string, contentType = 'image/png', bytes?: Buffer) {
  const body = bytes ?? (await solidImage(40, 30));
  const res = await env.request(apiKey, 'POST', '/v1/media/presign', { filename: name, contentType });
  const url = new URL(res.body.uploadUrl);
  const put = await env.app.inject({
    method: 'PUT',
    url: url.pathname + url.search,
    headers: { 'content-type': contentType },
    payload: body,
  });
  expect(put.statusCode).toBe(200);
  return res.body as { key: string; publicUrl: string };
}

describe('GET /v1/media', () => {
  it("lists the tenant's uploaded files newest first, with thumbnails for images, in pages", async () => {
    const { apiKey } = await env.createUser();
    const other = await env.createUser();
    await upload(other.apiKey, 'theirs.png');
    const first = await upload(apiKey, 'first.png');
    env.clock.advance(1000);
    const second = await upload(apiKey, 'second.png');
    env.clock.advance(1000);
    // Presigned but never uploaded: not in the library.
    await env.request(apiKey, 'POST', '/v1/media/presign', { filename: 'pending.png', contentType: 'image/png' });

    const res = await env.request(apiKey, 'GET', '/v1/media');
    expect(res.status).toBe(200);
    expect(res.body.media.map((m: { key: string }) => m.key)).toEqual([second.key, first.key]);
    expect(res.body.media[0]).toMatchObject({
      url: second.publicUrl,
      thumbnailUrl: second.publicUrl,
      filename: 'second.png',
      type: 'image',
      contentType: 'image/png',
      width: 40,
      height: 30,
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
    });
    expect(res.body.nextCursor).toBeNull();

    const page1 = await env.request(apiKey, 'GET', '/v1/media?limit=1');
    expect(page1.body.media.map((m: { key: string }) => m.key)).toEqual([second.key]);
    const page2 = await env.request(apiKey, 'GET', `/v1/media?limit=1&before=${page1.body.nextCursor}`);
    expect(page2.body.media.map((m: { key: string }) => m.key)).toEqual([first.key]);
    expect(page2.body.nextCursor).toBeNull();

    expect((await env.request(apiKey, 'GET', '/v1/media?type=video')).body.media).toEqual([]);
    const bad = await env.request(apiKey, 'GET', '/v1/media?limit=0');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation_error');
  });

  it('shows a video without a thumbnail (Herald makes no frame)', async () => {
    const { apiKey } = await env.createUser();
    const video = await upload(apiKey, 'clip.mp4', 'video/mp4', fakeMp4({ seconds: 3, width: 320, height: 240 }));
    const res = await env.request(apiKey, 'GET', '/v1/media');
    expect(res.body.media).toHaveLength(1);
    expect(res.body.media[0]).toMatchObject({ key: video.key, type: 'video', thumbnailUrl: null });
  });
});

describe('DELETE /v1/media/{mediaId}', () => {
  it('deletes an unused upload and its file; refuses one a post uses; hides other tenants’ files', async () => {
    const { apiKey } = await env.createUser();
    const other = await env.createUser();
    const unused = await upload(apiKey, 'unused.png');
    const used = await upload(apiKey, 'used.png');
    const draft = await env.request(apiKey, 'POST', '/v1/posts', {
      content: 'later',
      isDraft: true,
      mediaItems: [{ type: 'image', url: used.publicUrl }],
    });
    expect(draft.status).toBe(201);
    const ids = Object.fromEntries(
      (await env.request(apiKey, 'GET', '/v1/media')).body.media.map((m: { key: string; _id: string }) => [
        m.key,
        m._id,
      ]),
    );

    const theirs = await env.request(other.apiKey, 'DELETE', `/v1/media/${ids[unused.key]}`);
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe('media_not_found');
    expect(fs.existsSync(fileOf(unused.key))).toBe(true);

    const inUse = await env.request(apiKey, 'DELETE', `/v1/media/${ids[used.key]}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body).toMatchObject({ code: 'media_in_use', details: { mediaId: ids[used.key] } });
    expect(fs.existsSync(fileOf(used.key))).toBe(true);

    const ok = await env.request(apiKey, 'DELETE', `/v1/media/${ids[unused.key]}`);
    expect(ok.status).toBe(200);
    expect(fs.existsSync(fileOf(unused.key))).toBe(false);
    expect((await env.request(apiKey, 'GET', '/v1/media')).body.media.map((m: { key: string }) => m.key)).toEqual([
      used.key,
    ]);
    expect((await env.request(apiKey, 'DELETE', `/v1/media/${ids[unused.key]}`)).status).toBe(404);
  });
});
