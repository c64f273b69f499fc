import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesFetch } from '../../src/platforms/bytes-fetch.js';

/* bytesFetch: the fetch upload chunks go through (node:http, no copies of the body). */

let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const got = Buffer.concat(parts);
    if (req.url === '/resume') return res.writeHead(308, { range: `bytes=0-${got.length - 1}`, location: '/elsewhere' }).end();
    if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2000);
    res.writeHead(201, { 'content-type': 'application/json', 'x-got': String(got.length) });
    res.end(JSON.stringify({ method: req.method, length: req.headers['content-length'], te: req.headers['transfer-encoding'] ?? null, range: req.headers['content-range'], sum: got.reduce((a, b) => (a + b) % 65521, 0) }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('bytesFetch', () => {
  it('sends a byte body with its exact length and headers, and answers a Response with status, headers and body', async () => {
    const bytes = Buffer.alloc(3 * 1024 * 1024 + 7);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff;
    const view = bytes.subarray(5, bytes.length - 2);
    const res = await bytesFetch(`${base}/put`, { method: 'PUT', headers: { 'content-range': `bytes 0-${view.length - 1}/${view.length}` }, body: view });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-got')).toBe(String(view.length));
    expect(await res.json()).toEqual({
      method: 'PUT',
      length: String(view.length),
      te: null,
      range: `bytes 0-${view.length - 1}/${view.length}`,
      sum: view.reduce((a, b) => (a + b) % 65521, 0),
    });
  });

  it('hands a 308 back instead of following it', async () => {
    const res = await bytesFetch(`${base}/resume`, { method: 'PUT', body: Buffer.from('abc') });
    expect(res.status).toBe(308);
    expect(res.headers.get('range')).toBe('bytes=0-2');
  });

  it('stops at the signal', async () => {
    await expect(bytesFetch(`${base}/slow`, { method: 'PUT', body: Buffer.from('x'), signal: AbortSignal.timeout(100) })).rejects.toThrow();
  });

  it('sends any other body through fetch', async () => {
    const res = await bytesFetch(`${base}/put`, { method: 'POST', body: 'text' });
    expect(await res.json()).toMatchObject({ method: 'POST', length: '4' });
  });
});
