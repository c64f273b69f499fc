import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRunner } from '../../src/jobs/runner.js';
import { outboundFailureMessage } from '../../src/lib/outbound.js';
import { telegramSimulator } from '../../src/sandbox/telegram/index.js';
import { createWorker } from '../../src/worker.js';
import { createTenant } from '../helpers/posts.js';
import { createSandboxEnv, sandboxCall } from '../helpers/sandbox-env.js';
import { proveTelegramChat } from '../helpers/telegram-proof.js';

// A server with no insecure flag: a tenant's media URL on loopback must never be fetched.
let h: Awaited<ReturnType<typeof createSandboxEnv>>;
let runner: JobRunner;
let internal: http.Server;
let port: number;
const hits: string[] = [];

beforeAll(async () => {
  h = await createSandboxEnv([telegramSimulator()], { env: { OUTBOUND_ALLOW_PRIVATE: '' } });
  runner = await createWorker(h.env.ctx);
  internal = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.url === '/missing.png') return void res.writeHead(404).end();
    if (req.url === '/api.png') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    res
      .writeHead(200, { 'content-type': 'image/png', 'content-length': 8 })
      .end(req.method === 'HEAD' ? undefined : 'PNGBYTES');
  });
  await new Promise<void>((r) => internal.listen(0, '127.0.0.1', () => r()));
  port = (internal.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => internal?.close(r));
  await h?.close();
});

let chats = 0;
async function publishWithMedia(url: string) {
  const t = await createTenant(h.env);
  // A chat per tenant: a chat belongs to the one tenant that connected it.
  const chatId = `-100333333${String(++chats).padStart(4, '0')}`;
  await proveTelegramChat(h.env, h.sandbox, t.apiKey, t.profileId, chatId);
  const connected = await t.sdk.connect.telegram.initiateTelegramConnect({ body: { chatId, profileId: t.profileId } });
  const accountId = (connected.data as any).account._id as string;
  const created = await h.env.request(t.apiKey, 'POST', '/v1/posts', {
    content: 'internal picture',
    platforms: [{ platform: 'telegram', accountId }],
    mediaItems: [{ type: 'image', url }],
    publishNow: true,
  });
  expect(created.status).toBe(201);
  await runner.drain();
  return (await h.env.request(t.apiKey, 'GET', `/v1/posts/${created.body.post._id}`)).body.post;
}

describe('media URLs a tenant chose (no OUTBOUND_ALLOW_PRIVATE)', () => {
  it('fails a post whose media is on loopback with one neutral message, and the address receives no request', async () => {
    const before = (await sandboxCall(h.sandbox, 'GET', '/sandbox/telegram/_inspect')).posts.length;
    const errors: string[] = [];
    // An image that answers, a 404, a JSON answer, a closed port and a name for loopback: same outcome.
    for (const url of [
      `http://127.0.0.1:${port}/pixel.png`,
      `http://127.0.0.1:${port}/missing.png`,
      `http://127.0.0.1:${port}/api.png`,
      `http://127.0.0.1:1/pixel.png`,
      `http://localhost:${port}/pixel.png`,
    ]) {
      const post = await publishWithMedia(url);
      expect(post.status).toBe('failed');
      expect(post.platforms[0].status).toBe('failed');
      expect(post.platforms[0].errorMessage).toContain(outboundFailureMessage(url));
      errors.push(post.platforms[0].errorMessage.replace(url, '<url>'));
    }
    expect(new Set(errors).size).toBe(1);
    expect(hits).toEqual([]);
    // Nothing was handed to the platform either.
    expect((await sandboxCall(h.sandbox, 'GET', '/sandbox/telegram/_inspect')).posts.length).toBe(before);
  });
});
