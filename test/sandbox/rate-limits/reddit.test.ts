import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { redditSimulator } from '../../../src/sandbox/reddit/index.js';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import { call, fakeClock, until } from './helpers.js';

/* https://support.reddithelp.com/hc/en-us/articles/16160319875092-Reddit-Data-API-Wiki: 100 QPM per OAuth client id, averaged over 10 minutes. */
const clock = fakeClock();
let sandbox: SandboxServer;
beforeAll(async () => {
  sandbox = await startSandbox([redditSimulator({ now: clock.now })]);
});
afterAll(async () => sandbox?.close());
beforeEach(async () => {
  await call(sandbox, 'POST', '/sandbox/reddit/_reset');
});

const R = '/sandbox/reddit';
const UA = { 'user-agent': 'linux:com.example.herald:v1.0 (by /u/herald)' };

async function token(clientId: string): Promise<Record<string, string>> {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'http://127.0.0.1:9/cb',
    state: 's',
    duration: 'permanent',
    scope: 'identity submit',
  });
  const consent = await call(sandbox, 'GET', `${R}/api/v1/authorize?${q}`);
  const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
  const basic = `Basic ${Buffer.from(`${clientId}:secret`).toString('base64')}`;
  const res = await call(
    sandbox,
    'POST',
    `${R}/api/v1/access_token`,
    new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:9/cb' }),
    { ...UA, authorization: basic },
  );
  expect(res.status).toBe(200);
  return { ...UA, authorization: `Bearer ${res.body.access_token}` };
}

const me = (auth: Record<string, string>) => call(sandbox, 'GET', `${R}/api/v1/me`, undefined, auth);

describe('Reddit simulator rate limits', () => {
  it('allows an OAuth client 1,000 calls per 10 minutes across its users, then 429 with X-Ratelimit-Reset', async () => {
    const alice = await token('client-a');
    const first = await me(alice);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-used')).toBe('1');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('999');
    expect(first.headers.get('x-ratelimit-reset')).toBe('600');
    clock.advance(60_000);
    const { passed, stopped } = await until(1100, 429, () => me(alice));
    expect(passed).toHaveLength(999);
    expect(stopped.body).toEqual({ message: 'Too Many Requests', error: 429 });
    expect(stopped.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(stopped.headers.get('x-ratelimit-reset')).toBe('540');
    // The limit is the client's: another token of the same client is refused, another client is not.
    expect((await me(await token('client-a'))).status).toBe(429);
    expect((await me(await token('client-b'))).status).toBe(200);
    clock.advance(539_000);
    expect((await me(alice)).status).toBe(429);
    clock.advance(1_000);
    const after = await me(alice);
    expect(after.status).toBe(200);
    expect(after.headers.get('x-ratelimit-used')).toBe('1');
  });

  it('lets everything through with _config {rateLimits: false}', async () => {
    await call(sandbox, 'POST', `${R}/_config`, { rateLimits: false });
    const alice = await token('client-c');
    for (let i = 0; i < 1010; i++) expect((await me(alice)).status).toBe(200);
  });
});
