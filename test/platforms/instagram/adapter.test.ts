import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInstagramAdapter } from '../../../src/platforms/instagram/index.js';
import { PlatformError } from '../../../src/platforms/types.js';
import { publishRequest, testIO } from '../../helpers/platform-io.js';

/*
 * The Instagram adapter against a scripted Graph on loopback, for answers the simulator does not give at
 * will: the 24-hour publishing quota used up (refused before any container is made), and Instagram's own
 * error codes, and the lookup of a story after a lost answer.
 */

let server: http.Server;
let base = '';
const seen: string[] = [];
let answer: (path: string) => { status: number; body: unknown } = () => ({ status: 404, body: {} });

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const a = answer(req.url ?? '');
    res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => new Promise<void>((r) => server.close(() => r())));

const adapter = () =>
  createInstagramAdapter({
    login: 'facebook',
    apiUrl: base,
    authUrl: base,
    tokenUrl: base,
    version: 'v24.0',
    appId: 'a',
    appSecret: 's',
    scopes: [],
  });
const account = {
  accountId: 'acc',
  platformUserId: 'u1',
  username: 'me_ig',
  accessToken: 'page-token',
  refreshToken: 'user-token',
  tokenExpiresAt: null,
  metadata: { igUserId: '1789' },
};
const req = () =>
  publishRequest(account, {
    content: 'quota',
    media: [{ type: 'image', url: 'https://media.example/a.jpg', mimeType: 'image/jpeg' }],
  });

async function failure(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

describe('Instagram adapter', () => {
  it('refuses to publish when content_publishing_limit says the 24-hour quota is used, without making a container', async () => {
    seen.length = 0;
    answer = (path) =>
      path.includes('content_publishing_limit')
        ? { status: 200, body: { data: [{ quota_usage: 100, config: { quota_total: 100, quota_duration: 86400 } }] } }
        : { status: 500, body: {} };
    const error = await failure(adapter().publish(req(), testIO().io));
    expect(error).toMatchObject({
      kind: 'rate_limited',
      platformCode: 'content_publishing_limit',
      retryAfterMs: 3_600_000,
    });
    expect(error.message).toMatch(/published 100 posts .* in the last 24 hours/);
    expect(seen).toEqual(['GET /v24.0/1789/content_publishing_limit?fields=quota_usage,config']);
  });

  it("maps Instagram's codes: 9/2207042 the daily limit, 9004/2207052 media it cannot download", async () => {
    const graphError = (code: number, subcode: number, message: string) => ({
      status: 400,
      body: { error: { message, type: 'OAuthException', code, error_subcode: subcode, fbtrace_id: 'x' } },
    });
    answer = (path) =>
      path.includes('content_publishing_limit')
        ? { status: 200, body: { data: [{ quota_usage: 3, config: { quota_total: 100 } }] } }
        : graphError(9004, 2207052, 'Media download has failed.');
    const download = await failure(adapter().publish(req(), testIO().io));
    expect(download.kind).toBe('rejected');
    expect(download.message).toMatch(/URL must be public/);
    answer = (path) =>
      path.includes('content_publishing_limit')
        ? { status: 200, body: { data: [] } }
        : graphError(9, 2207042, 'Application request limit reached');
    expect(await failure(adapter().publish(req(), testIO().io))).toMatchObject({
      kind: 'rate_limited',
      retryAfterMs: 3_600_000,
    });
  });

  it('finds a story after a lost answer only when it is the one story since the attempt (a story has no caption)', async () => {
    const since = new Date(Date.now() - 60_000);
    const story = (id: string) => ({
      id,
      timestamp: new Date().toISOString(),
      permalink: `https://www.instagram.com/stories/me_ig/${id}/`,
    });
    const storyReq = publishRequest(account, { content: '', platformSpecificData: { contentType: 'story' } });
    answer = () => ({ status: 200, body: { data: [story('17900000000000001')] } });
    expect(await adapter().findPublished!(storyReq, since, testIO().io)).toMatchObject({
      platformPostId: '17900000000000001',
    });
    answer = () => ({ status: 200, body: { data: [story('17900000000000001'), story('17900000000000002')] } });
    expect(await adapter().findPublished!(storyReq, since, testIO().io)).toBeNull();
    seen.length = 0;
    answer = () => ({
      status: 200,
      body: { data: [{ id: '1', caption: 'other', timestamp: new Date().toISOString() }] },
    });
    expect(await adapter().findPublished!(req(), since, testIO().io)).toBeNull();
    expect(seen[0]).toMatch(
      /^GET \/v24\.0\/1789\/media\?fields=id%2Ccaption%2Ctimestamp%2Cpermalink&limit=100&since=\d+$/,
    );
  });
});
