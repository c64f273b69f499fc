import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

let env: TestEnv;
let apiKey: string;
beforeAll(async () => {
  env = await createTestEnv();
  ({ apiKey } = await env.createUser());
});
afterAll(async () => env?.close());

/** Every scraping operation of the hosted API's 1.0.1 contract, with a valid request. */
const OPERATIONS: Array<[method: string, path: string, body?: unknown]> = [
  ['GET', '/v1/tools/youtube/download?url=https%3A%2F%2Fwww.youtube.com%2Fwatch%3Fv%3DdQw4w9WgXcQ&action=formats'],
  ['GET', '/v1/tools/youtube/transcript?url=dQw4w9WgXcQ&lang=en'],
  ['GET', '/v1/tools/instagram/download?url=https%3A%2F%2Fwww.instagram.com%2Freel%2FABC123%2F'],
  ['POST', '/v1/tools/instagram/hashtag-checker', { hashtags: ['travel', 'followforfollow'] }],
  ['GET', '/v1/tools/tiktok/download?url=https%3A%2F%2Fwww.tiktok.com%2F%40u%2Fvideo%2F1&formatId=0'],
  ['GET', '/v1/tools/twitter/download?url=https%3A%2F%2Fx.com%2Fuser%2Fstatus%2F123456789'],
  ['GET', '/v1/tools/facebook/download?url=https%3A%2F%2Fwww.facebook.com%2Freel%2F1'],
  ['GET', '/v1/tools/linkedin/download?url=https%3A%2F%2Fwww.linkedin.com%2Fposts%2Fx'],
  ['GET', '/v1/tools/bluesky/download?url=https%3A%2F%2Fbsky.app%2Fprofile%2Fuser.bsky.social%2Fpost%2Fabc123'],
];

describe('download, transcript and hashtag tools', () => {
  it.each(OPERATIONS)('%s %s answers 501 saying Herald does not scrape platforms', async (method, path, body) => {
    const res = await env.request(apiKey, method, path, body);
    expect(res.status).toBe(501);
    expect(res.body).toEqual({
      error: expect.stringContaining('self-hosted Herald does not scrape platforms'),
      code: 'scraping_not_supported',
      details: { platform: path.split('/')[3], tool: path.split('/')[4].split('?')[0] },
    });
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('also under /api/v1 (the SDK base URL)', async () => {
    expect((await env.request(apiKey, 'GET', '/api/v1/tools/youtube/transcript?url=x')).status).toBe(501);
  });

  it('checks the request first: no key is 401, a missing url or too many hashtags is 400, an unknown platform 404', async () => {
    expect((await env.request(null, 'GET', '/v1/tools/youtube/download?url=x')).status).toBe(401);
    const noUrl = await env.request(apiKey, 'GET', '/v1/tools/youtube/download');
    expect(noUrl.status).toBe(400);
    expect(noUrl.body).toMatchObject({ code: 'validation_error', details: { fields: expect.any(Object) } });
    const badAction = await env.request(apiKey, 'GET', '/v1/tools/tiktok/download?url=x&action=steal');
    expect(badAction.status).toBe(400);
    const many = await env.request(apiKey, 'POST', '/v1/tools/instagram/hashtag-checker', {
      hashtags: Array.from({ length: 21 }, (_, i) => `t${i}`),
    });
    expect(many.status).toBe(400);
    expect((await env.request(apiKey, 'POST', '/v1/tools/instagram/hashtag-checker', {})).status).toBe(400);
    const unknown = await env.request(apiKey, 'GET', '/v1/tools/myspace/download?url=x');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: expect.any(String), code: 'tool_not_found' });
  });

  it('leaves the validate tools to their own routes', async () => {
    const res = await env.request(apiKey, 'POST', '/v1/tools/validate/post', {
      content: 'hi',
      platforms: [{ platform: 'telegram' }],
    });
    expect(res.status).toBe(200);
  });
});
