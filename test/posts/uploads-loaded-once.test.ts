import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import * as mediaStore from '../../src/store/media.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { createTenant } from '../helpers/posts.js';
import { solidImage } from '../fixtures/media.js';

/*
 * A post's stored uploads are read once per request: the media rule loads them, and what runs after
 * validation (the durations creation checks accounts with, the dry run's warnings) reuses its probes.
 * The store's read is wrapped to count the reads.
 */

vi.mock('../../src/store/media.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/store/media.js')>();
  return { ...actual, findTenantMediaByKeys: vi.fn(actual.findTenantMediaByKeys) };
});
const reads = vi.mocked(mediaStore.findTenantMediaByKeys);

let env: TestEnv;
let tenant: Awaited<ReturnType<typeof createTenant>>;
let images: { publicUrl: string; key: string }[];

async function upload(bytes: Buffer): Promise<{ publicUrl: string; key: string }> {
  const res = await env.request(tenant.apiKey, 'POST', '/v1/media/presign', {
    filename: 'a.png',
    contentType: 'image/png',
    size: bytes.length,
  });
  const url = new URL(res.body.uploadUrl);
  const put = await env.app.inject({
    method: 'PUT',
    url: url.pathname + url.search,
    headers: { 'content-type': 'image/png' },
    payload: bytes,
  });
  expect(put.statusCode).toBe(200);
  return res.body;
}

beforeAll(async () => {
  env = await createTestEnv();
  tenant = await createTenant(env);
  images = [
    await upload(await solidImage(64, 48)),
    await upload(await solidImage(80, 60)),
    await upload(await solidImage(96, 72)),
  ];
});
afterAll(async () => env?.close());
beforeEach(() => {
  reads.mockClear();
});

/** Three targets: two with the post's media, one with its own; a thread item with a third upload. */
async function body() {
  return {
    content: 'three targets',
    mediaItems: [{ type: 'image', url: images[0].publicUrl }],
    platforms: [
      { platform: 'bluesky', accountId: await tenant.account('bluesky') },
      { platform: 'linkedin', accountId: await tenant.account('linkedin') },
      {
        platform: 'twitter',
        accountId: await tenant.account('twitter'),
        customMedia: [{ type: 'image', url: images[1].publicUrl }],
        platformSpecificData: {
          threadItems: [{ content: 'reply', mediaItems: [{ type: 'image', url: images[2].publicUrl }] }],
        },
      },
    ],
  };
}

describe('uploads loaded once per request', () => {
  it('creating a post reads its uploads once, every target and thread item included', async () => {
    const post = await body();
    const res = await env.request(tenant.apiKey, 'POST', '/v1/posts', {
      ...post,
      scheduledFor: new Date(env.clock.now().getTime() + 3_600_000).toISOString(),
    });
    expect(res.status).toBe(201);
    expect(reads).toHaveBeenCalledTimes(1);
    expect([...reads.mock.calls[0][2]].sort()).toEqual(images.map((i) => i.key).sort());
  });

  it('updating a post with new platforms reads its uploads once', async () => {
    const created = await env.request(tenant.apiKey, 'POST', '/v1/posts', { content: 'draft', isDraft: true });
    expect(created.status).toBe(201);
    reads.mockClear();
    const post = await body();
    const res = await env.request(tenant.apiKey, 'PUT', `/v1/posts/${created.body.post._id}`, {
      ...post,
      scheduledFor: new Date(env.clock.now().getTime() + 7_200_000).toISOString(),
    });
    expect(res.status).toBe(200);
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('the validation tool reads the uploads once for its errors and its warnings', async () => {
    const post = await body();
    const res = await env.request(tenant.apiKey, 'POST', '/v1/tools/validate/post', {
      ...post,
      platforms: [...post.platforms, { platform: 'youtube', accountId: await tenant.account('youtube') }],
    });
    expect(res.status).toBe(200);
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('a post without uploads reads nothing', async () => {
    const res = await env.request(tenant.apiKey, 'POST', '/v1/tools/validate/post', {
      content: 'text only',
      platforms: [{ platform: 'bluesky' }],
    });
    expect(res.body.valid).toBe(true);
    expect(reads).not.toHaveBeenCalled();
  });
});
