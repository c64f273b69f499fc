import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BYTES_OVER, bytesFetch } from '../../src/platforms/bytes-fetch.js';
import { isAmbiguousNetworkError } from '../../src/platforms/io.js';

/*
 * bytesFetch, the fetch under every PlatformIO: a large byte body goes over node:http, and the caller
 * sees what the global fetch would have given it (each case asks both and compares where fetch can).
 */

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}
let seen: Seen[] = [];
let server: http.Server;
let base: string;
let other: string; // the same server under another origin (localhost)
let closedPort: number;

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const got = Buffer.concat(parts);
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: got });
    const path = req.url!.split('?')[0];
    if (path === '/resume') return void res.writeHead(308, { range: `bytes=0-${got.length - 1}` }).end();
    if (path === '/see-other') return void res.writeHead(303, { location: '/landed' }).end('moved');
    if (path === '/moved-on') return void res.writeHead(307, { location: `${other}/landed` }).end();
    if (path === '/loop') return void res.writeHead(307, { location: '/loop' }).end();
    if (path === '/slow') return void setTimeout(() => res.end('late'), 5000);
    if (path === '/stall') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return void res.write('first part');
    }
    if (path === '/hangup') return void req.socket.destroy();
    if (path === '/fail')
      return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"down"}');
    res.writeHead(201, { 'content-type': 'application/json', 'x-got': String(got.length) });
    res.end(JSON.stringify({ method: req.method, length: got.length, sum: got.reduce((a, b) => (a + b) % 65521, 0) }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  other = `http://localhost:${port}`;
  const spare = http.createServer();
  await new Promise<void>((r) => spare.listen(0, '127.0.0.1', r));
  closedPort = (spare.address() as AddressInfo).port;
  await new Promise((r) => spare.close(r));
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function bytes(n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < b.length; i++) b[i] = (i * 31) & 0xff;
  return b;
}
const LARGE = BYTES_OVER + 4096;

/** What the server saw of one request, without what only describes the connection (a large body by its digest). */
function request(s: Seen) {
  const { host, connection, 'accept-encoding': _encoding, ...headers } = s.headers;
  const body = s.body.length > 1024 ? createHash('sha256').update(s.body).digest('hex') : s.body.toString('latin1');
  return { method: s.method, url: s.url, headers, size: s.body.length, body };
}

/** The same call through both fetches: what the server saw and what the caller got, side by side. */
async function both(url: string, init: () => RequestInit) {
  const out = [];
  for (const f of [fetch, bytesFetch]) {
    seen = [];
    const res = await f(url, init());
    const answer = { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
    out.push({ requests: seen.map(request), answer, raw: seen });
  }
  return out;
}

describe('bytesFetch', () => {
  it('sends a large byte body as fetch does: same method, headers and bytes; same answer', async () => {
    const body = bytes(3 * 1024 * 1024 + 7).subarray(5);
    const [viaFetch, viaHttp] = await both(`${base}/put?x=1`, () => ({
      method: 'put',
      headers: { 'content-range': `bytes 0-${body.length - 1}/${body.length}`, authorization: 'Bearer t' },
      body,
    }));
    expect(viaHttp.requests).toEqual(viaFetch.requests);
    expect(viaHttp.answer).toEqual(viaFetch.answer);
    expect(viaHttp.requests[0].headers['content-length']).toBe(String(body.length));
    expect(JSON.parse(viaHttp.answer.body)).toMatchObject({ method: 'PUT', length: body.length });
  });

  it('sends a FormData carrying large bytes as the same multipart body fetch writes', async () => {
    const form = () => {
      const f = new FormData();
      f.set('command', 'APPEND');
      f.set('segment "index"', '0\nnext');
      f.set('media', new Blob([bytes(LARGE)], { type: 'video/mp4' }), 'clip "1".mp4');
      f.append('file', new Blob([bytes(10)]));
      return f;
    };
    const [viaFetch, viaHttp] = await both(`${base}/form`, () => ({ method: 'POST', body: form() }));
    // The same parts in the same bytes, under each one's own random boundary.
    const unbound = (r: Seen) => {
      const boundary = /boundary=(.+)$/.exec(String(r.headers['content-type']))![1];
      const body = r.body.toString('latin1').split(boundary).join('B');
      return request({
        ...r,
        headers: { ...r.headers, 'content-type': 'multipart/form-data', 'content-length': String(body.length) },
        body: Buffer.from(body, 'latin1'),
      });
    };
    expect(unbound(viaHttp.raw[0])).toEqual(unbound(viaFetch.raw[0]));
    expect(viaHttp.answer.status).toBe(201);
  });

  it('answers an HTTP error status as a Response, as fetch does', async () => {
    const [viaFetch, viaHttp] = await both(`${base}/fail`, () => ({ method: 'POST', body: bytes(LARGE) }));
    expect(viaHttp.answer).toEqual({ status: 500, type: 'application/json', body: '{"error":"down"}' });
    expect(viaHttp.requests).toEqual(viaFetch.requests);
    expect(viaHttp.answer).toEqual(viaFetch.answer);
  });

  it('follows a 303 as a GET without the body, as fetch does', async () => {
    const [viaFetch, viaHttp] = await both(`${base}/see-other`, () => ({
      method: 'PUT',
      headers: { 'content-type': 'video/mp4' },
      body: bytes(LARGE),
    }));
    expect(viaHttp.requests.map((r) => [r.method, r.url, r.size, r.headers['content-type']])).toEqual([
      ['PUT', '/see-other', LARGE, 'video/mp4'],
      ['GET', '/landed', 0, undefined],
    ]);
    expect(viaHttp.requests).toEqual(viaFetch.requests);
    expect(viaHttp.answer).toEqual(viaFetch.answer);
  });

  it('follows a 307 with the same bytes, dropping the credentials when the origin changes', async () => {
    seen = [];
    const res = await bytesFetch(`${base}/moved-on`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'image/png' },
      body: bytes(LARGE),
    });
    expect(res.status).toBe(201);
    const sent = bytes(LARGE);
    expect(
      seen.map((r) => [r.method, r.url, r.body.equals(sent), r.headers.authorization, r.headers['content-type']]),
    ).toEqual([
      ['POST', '/moved-on', true, 'Bearer t', 'image/png'],
      ['POST', '/landed', true, undefined, 'image/png'],
    ]);
  });

  it('hands a redirect back with redirect: manual (an upload 308 is "resume incomplete")', async () => {
    const res = await bytesFetch(`${base}/resume`, { method: 'PUT', body: bytes(LARGE), redirect: 'manual' });
    expect(res.status).toBe(308);
    expect(res.headers.get('range')).toBe(`bytes=0-${LARGE - 1}`);
  });

  it('fails as fetch does on redirect: error and past 20 redirects', async () => {
    for (const f of [fetch, bytesFetch]) {
      await expect(f(`${base}/see-other`, { method: 'PUT', body: bytes(LARGE), redirect: 'error' })).rejects.toThrow(
        TypeError,
      );
      seen = [];
      await expect(f(`${base}/loop`, { method: 'PUT', body: bytes(10) })).rejects.toThrow(TypeError);
    }
    seen = [];
    await expect(bytesFetch(`${base}/loop`, { method: 'PUT', body: bytes(LARGE) })).rejects.toThrow('fetch failed');
    expect(seen).toHaveLength(21);
  });

  it('reports network failures as fetch does, so they are classified the same', async () => {
    const refused = await bytesFetch(`http://127.0.0.1:${closedPort}/x`, { method: 'POST', body: bytes(LARGE) }).catch(
      (e: unknown) => e,
    );
    const refusedByFetch = await fetch(`http://127.0.0.1:${closedPort}/x`, {
      method: 'POST',
      body: bytes(LARGE),
    }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: 'TypeError', message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
    expect(isAmbiguousNetworkError(refused)).toBe(false);
    expect(isAmbiguousNetworkError(refused)).toBe(isAmbiguousNetworkError(refusedByFetch));

    const lost = await bytesFetch(`${base}/hangup`, { method: 'POST', body: bytes(LARGE) }).catch((e: unknown) => e);
    const lostByFetch = await fetch(`${base}/hangup`, { method: 'POST', body: bytes(LARGE) }).catch((e: unknown) => e);
    expect(lost).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    expect(isAmbiguousNetworkError(lost)).toBe(true);
    expect(isAmbiguousNetworkError(lost)).toBe(isAmbiguousNetworkError(lostByFetch));
  });

  it("stops at the signal with the signal's reason, before the answer and while its body is read", async () => {
    for (const f of [fetch, bytesFetch]) {
      const early = new AbortController();
      const pending = f(`${base}/slow`, { method: 'PUT', body: bytes(LARGE), signal: early.signal });
      setImmediate(() => early.abort(new Error('lease lost')));
      await expect(pending).rejects.toThrow('lease lost');
      await expect(
        f(`${base}/x`, { method: 'PUT', body: bytes(LARGE), signal: AbortSignal.abort(new Error('already')) }),
      ).rejects.toThrow('already');

      const late = new AbortController();
      const res = await f(`${base}/stall`, { method: 'PUT', body: bytes(LARGE), signal: late.signal });
      expect(res.status).toBe(200);
      const reading = res.text();
      late.abort(new Error('timed out'));
      await expect(reading).rejects.toThrow('timed out');
    }
  });

  it('leaves small bodies and other bodies to fetch', async () => {
    for (const body of [bytes(BYTES_OVER), 'text', new URLSearchParams({ a: '1' })]) {
      seen = [];
      await (await bytesFetch(`${base}/put`, { method: 'POST', body })).text();
      expect(seen[0].headers['accept-encoding']).toBe('gzip, deflate');
    }
    seen = [];
    await (await bytesFetch(`${base}/put`, { method: 'POST', body: bytes(LARGE) })).text();
    expect(seen[0].headers['accept-encoding']).toBeUndefined();
  });
});
