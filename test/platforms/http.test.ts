import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformRequest, type PlatformHttp } from '../../src/platforms/http.js';
import { createPlatformIO, type CallRecord } from '../../src/platforms/io.js';
import { PlatformError } from '../../src/platforms/types.js';

/* The one request helper every adapter's api.ts sends through: body caps, timeouts, error kinds, the log. */

let server: http.Server;
let base: string;
const NOW = new Date('2026-01-01T00:00:00Z');
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/big') return void res.writeHead(200).end(Buffer.alloc(10_000, 'a'));
    if (url.pathname === '/hang') return; // never answers
    if (url.pathname === '/drop') return void req.socket.destroy();
    const status = Number(url.searchParams.get('status') ?? 200);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (url.searchParams.get('retryAfter')) headers['retry-after'] = url.searchParams.get('retryAfter')!;
    if (url.searchParams.get('reset')) headers['x-reset'] = url.searchParams.get('reset')!;
    res.writeHead(status, headers).end(JSON.stringify({ msg: url.searchParams.get('msg') ?? 'hello', code: 'C1' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => new Promise((r) => server.close(r)));

const platform: PlatformHttp = {
  name: 'Demo',
  resetHeader: 'x-reset',
  describe: ({ body, status }) => ({ message: body?.msg ?? `HTTP ${status}`, platformCode: body?.code ?? null }),
  classify: (answer, { message }) =>
    answer.status === 400 && message === 'expired' ? new PlatformError('auth', message, { status: 400 }) : null,
};

function setup() {
  const calls: CallRecord[] = [];
  return { io: createPlatformIO({ now: () => NOW, onCall: (c) => calls.push(c) }), calls };
}

async function failure(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

describe('platformRequest', () => {
  it('returns a 2xx answer parsed, and the call is in the log with its response preview', async () => {
    const { io, calls } = setup();
    const res = await platformRequest(io, platform, { method: 'POST', url: `${base}/ok?msg=hi`, body: '{"a":1}' });
    expect(res.body).toEqual({ msg: 'hi', code: 'C1' });
    expect(calls).toEqual([
      expect.objectContaining({
        endpoint: `${base}/ok`,
        statusCode: 200,
        requestPreview: '{"a":1}',
        responsePreview: '{"msg":"hi","code":"C1"}',
      }),
    ]);
  });

  it('applies the common rules: 401 auth, 429 with Retry-After or the reset header, 5xx unavailable, 4xx rejected', async () => {
    const { io } = setup();
    const err = (q: string) => failure(platformRequest(io, platform, { method: 'GET', url: `${base}/e?${q}` }));
    expect((await err('status=401')).kind).toBe('auth');
    expect(await err('status=429&retryAfter=7')).toMatchObject({ kind: 'rate_limited', retryAfterMs: 7000 });
    const reset = NOW.getTime() / 1000 + 90;
    expect(await err(`status=429&reset=${reset}`)).toMatchObject({ kind: 'rate_limited', retryAfterMs: 90_000 });
    expect(await err('status=503')).toMatchObject({ kind: 'unavailable', status: 503, platformCode: 'C1' });
    expect(await err('status=422&msg=nope')).toMatchObject({
      kind: 'rejected',
      message: 'nope',
      endpoint: `${base}/e`,
    });
  });

  it("lets the platform's hook read an answer first", async () => {
    const { io } = setup();
    expect(
      (await failure(platformRequest(io, platform, { method: 'GET', url: `${base}/e?status=400&msg=expired` }))).kind,
    ).toBe('auth');
  });

  it('refuses an answer over the cap: unavailable, or ambiguous for a call that creates', async () => {
    const { io } = setup();
    expect(
      (await failure(platformRequest(io, platform, { method: 'GET', url: `${base}/big`, maxBytes: 1000 }))).kind,
    ).toBe('unavailable');
    expect(
      (
        await failure(
          platformRequest(io, platform, { method: 'POST', url: `${base}/big`, maxBytes: 1000, creates: true }),
        )
      ).kind,
    ).toBe('ambiguous');
    expect((await platformRequest(io, platform, { method: 'GET', url: `${base}/big` })).raw).toHaveLength(10_000);
  });

  it('a connection lost after sending is ambiguous for a call that creates; one refused before sending never is', async () => {
    const { io } = setup();
    expect(
      (await failure(platformRequest(io, platform, { method: 'POST', url: `${base}/drop`, creates: true }))).kind,
    ).toBe('ambiguous');
    expect((await failure(platformRequest(io, platform, { method: 'POST', url: `${base}/drop` }))).kind).toBe(
      'unavailable',
    );
    const spare = http.createServer();
    await new Promise<void>((r) => spare.listen(0, '127.0.0.1', () => r()));
    const closed = `http://127.0.0.1:${(spare.address() as AddressInfo).port}/`;
    await new Promise((r) => spare.close(r));
    expect((await failure(platformRequest(io, platform, { method: 'POST', url: closed, creates: true }))).kind).toBe(
      'unavailable',
    );
  });

  it('times out a call after its own timeoutMs', async () => {
    const { io } = setup();
    const error = await failure(
      platformRequest(io, platform, { method: 'POST', url: `${base}/hang`, timeoutMs: 50, creates: true }),
    );
    expect(error.kind).toBe('ambiguous');
  });
});
