import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformIO, readAtMost, type CallRecord } from '../../src/platforms/io.js';

/* PlatformIO's fetch: each call is recorded with the start of its answer, and the body still streams. */

let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url?.startsWith('/json'))
      return void res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"nope"}');
    if (req.url === '/empty') return void res.writeHead(204).end();
    // 3 x 4 KB, then the end.
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    for (const c of ['a', 'b', 'c']) res.write(Buffer.alloc(4096, c));
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => new Promise((r) => server.close(r)));

function io() {
  const calls: CallRecord[] = [];
  return { io: createPlatformIO({ now: () => new Date(), onCall: (c) => calls.push(c) }), calls };
}

describe('PlatformIO fetch', () => {
  it('records the answer the caller read, whole when it is short', async () => {
    const { io: p, calls } = io();
    const res = await p.fetch(`${base}/json?x=1`, { method: 'POST', body: '{"a":1}' });
    expect(await res.json()).toEqual({ error: 'nope' });
    expect(calls).toEqual([
      expect.objectContaining({
        method: 'POST',
        endpoint: `${base}/json`,
        statusCode: 400,
        requestPreview: '{"a":1}',
        responsePreview: '{"error":"nope"}',
      }),
    ]);
  });

  it('keeps the first 5,000 bytes of a longer answer, and passes every byte on', async () => {
    const { io: p, calls } = io();
    const body = Buffer.from(await (await p.fetch(`${base}/stream`)).arrayBuffer());
    expect(body.length).toBe(3 * 4096);
    expect(calls[0].responsePreview).toBe('a'.repeat(4096) + 'b'.repeat(5000 - 4096));
  });

  it('an answer without a body is passed through', async () => {
    const { io: p, calls } = io();
    const res = await p.fetch(`${base}/empty`);
    expect(res.status).toBe(204);
    expect(calls[0]).toMatchObject({ statusCode: 204, responsePreview: null });
  });

  it('readAtMost stops past its limit and says the answer was longer', async () => {
    const { io: p } = io();
    const cut = await readAtMost(await p.fetch(`${base}/stream`), 6000);
    expect(cut.truncated).toBe(true);
    expect(cut.bytes.toString()).toBe('a'.repeat(4096) + 'b'.repeat(6000 - 4096));
    const whole = await readAtMost(await p.fetch(`${base}/stream`), 3 * 4096);
    expect(whole).toMatchObject({ truncated: false });
    expect(whole.bytes.length).toBe(3 * 4096);
  });
});
