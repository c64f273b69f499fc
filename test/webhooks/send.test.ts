import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicOnlyLookup, sendWebhookRequest } from '../../src/domain/webhooks/send.js';
import { deadUrl } from '../helpers/webhook-receiver.js';

// The outbound request itself, against real loopback servers.
let server: http.Server;
let base: string;
const seen: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    if (req.url === '/hang') return; // never answers
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('sendWebhookRequest', () => {
  it('refuses loopback and plain http without the development switch, before connecting', async () => {
    const before = seen.length;
    const res = await sendWebhookRequest({ url: `${base}/x`, body: '{}', headers: {}, allowInsecure: false });
    expect(res).toMatchObject({ ok: false, statusCode: null });
    expect(res.error).toMatch(/URL refused: must use https/);
    const literal = await sendWebhookRequest({
      url: 'https://127.0.0.1:1/x',
      body: '{}',
      headers: {},
      allowInsecure: false,
    });
    expect(literal.error).toMatch(/URL refused: .*private, loopback or link-local/);
    expect(seen.length).toBe(before);
  });

  it('checks the resolved address again at connect time (DNS rebinding)', async () => {
    const result = await new Promise<{ err: Error | null }>((resolve) =>
      publicOnlyLookup('localhost', { all: true }, (err) => resolve({ err: err as Error | null })),
    );
    expect(result.err?.message).toMatch(/private, loopback or link-local/);
  });

  it('gives up on a receiver that does not answer in time', async () => {
    const res = await sendWebhookRequest({
      url: `${base}/hang`,
      body: '{}',
      headers: {},
      allowInsecure: true,
      timeoutMs: 300,
    });
    expect(res.ok).toBe(false);
    expect(res.error).toMatch(/timed out/);
  });

  it('reports a receiver that is not listening as connection refused', async () => {
    const res = await sendWebhookRequest({ url: await deadUrl(), body: '{}', headers: {}, allowInsecure: true });
    expect(res).toMatchObject({ ok: false, statusCode: null, error: 'connection refused' });
  });

  it('sends the body with its length and reads the answer', async () => {
    const res = await sendWebhookRequest({
      url: `${base}/ok`,
      body: '{"a":1}',
      headers: { 'x-a': 'b' },
      allowInsecure: true,
    });
    expect(res).toMatchObject({ ok: true, statusCode: 200, responseBody: 'ok', error: null });
  });
});
