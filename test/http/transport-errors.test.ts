import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

// What inject cannot produce: bytes Node's HTTP parser or Fastify's router refuse before any route.
let env: TestEnv;
let port: number;
beforeAll(async () => {
  env = await createTestEnv();
  port = Number(new URL(await env.listen()).port);
});
afterAll(async () => env?.close());

/** Sends raw bytes and reads until the server closes (or ends one answer); status, headers, body. */
function raw(bytes: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    const done = () => {
      const [head, ...rest] = data.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? NaN);
      const body = rest.join('\r\n\r\n');
      resolve({ status, headers: head, body: Number.isFinite(length) ? body.slice(0, length) : body });
    };
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
      const [head, ...rest] = data.split('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? NaN);
      if (rest.length > 0 && Number.isFinite(length) && Buffer.byteLength(rest.join('\r\n\r\n'), 'latin1') >= length) {
        socket.destroy();
        done();
      }
    });
    socket.on('close', () => (data ? done() : reject(new Error('closed without an answer'))));
    socket.on('error', () => {});
    socket.write(bytes);
  });
}

const cases: Array<{ label: string; bytes: string; status: number; code: string }> = [
  {
    label: 'a query over 16 KB',
    bytes: `GET /v1/profiles?q=${'a'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    status: 431,
    code: 'headers_too_large',
  },
  { label: 'a malformed request line', bytes: 'GET\r\n\r\n', status: 400, code: 'malformed_request' },
  {
    label: 'a Content-Length that is not a number',
    bytes: 'POST /v1/profiles HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
    status: 400,
    code: 'invalid_content_length',
  },
  {
    label: 'two different Content-Lengths',
    bytes: 'POST /v1/profiles HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
    status: 400,
    code: 'invalid_content_length',
  },
  {
    label: 'a bad chunk size',
    bytes: 'POST /v1/profiles HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    status: 400,
    code: 'invalid_transfer_encoding',
  },
  {
    label: 'an unknown Expect',
    bytes: 'POST /v1/profiles HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}',
    status: 417,
    code: 'expectation_failed',
  },
  {
    label: 'malformed percent-encoding',
    bytes: 'GET /v1/profiles/%E0%A4%A HTTP/1.1\r\nHost: x\r\n\r\n',
    status: 400,
    code: 'bad_url',
  },
  {
    label: 'a path parameter over the length limit',
    bytes: `GET /v1/profiles/${'z'.repeat(300)}secret HTTP/1.1\r\nHost: x\r\n\r\n`,
    status: 414,
    code: 'uri_too_long',
  },
];

describe('errors before routing', () => {
  for (const c of cases) {
    it(`answers ${c.status} ${c.code} in the envelope to ${c.label}`, async () => {
      const res = await raw(c.bytes);
      expect(res.status).toBe(c.status);
      expect(res.headers).toMatch(/content-type: application\/json/i);
      const body = JSON.parse(res.body);
      expect(body).toEqual({ error: expect.any(String), code: c.code, details: {} });
      // The URL is never echoed back.
      expect(res.body).not.toContain('aaaaaaaaaa');
      expect(res.body).not.toContain('secret');
    });
  }
});
