import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { blueskySimulator } from '../../../src/sandbox/bluesky/index.js';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import { call, fakeClock, until, type Answer } from './helpers.js';

/* https://docs.bsky.app/docs/advanced-guides/rate-limits */
const clock = fakeClock();
let sandbox: SandboxServer;
beforeAll(async () => {
  sandbox = await startSandbox([blueskySimulator({ now: clock.now })]);
});
afterAll(async () => sandbox?.close());
beforeEach(async () => {
  await call(sandbox, 'POST', '/sandbox/bluesky/_reset');
});

const xrpc = (nsid: string) => `/sandbox/bluesky/xrpc/${nsid}`;
const login = (handle: string) =>
  call(sandbox, 'POST', xrpc('com.atproto.server.createSession'), {
    identifier: handle,
    password: 'abcd-efgh-ijkl-mnop',
  });
async function session(handle: string) {
  const res = await login(handle);
  expect(res.status).toBe(200);
  return { did: res.body.did as string, auth: { authorization: `Bearer ${res.body.accessJwt}` } };
}
const post = (s: { did: string; auth: Record<string, string> }, text: string) =>
  call(
    sandbox,
    'POST',
    xrpc('com.atproto.repo.createRecord'),
    {
      repo: s.did,
      collection: 'app.bsky.feed.post',
      record: { $type: 'app.bsky.feed.post', text, createdAt: new Date(clock.ms()).toISOString() },
    },
    s.auth,
  );

function expectRateLimited(res: Answer, limit: number, windowS: number, cost = 1) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' });
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  // Fewer points remain than the call costs.
  expect(Number(res.headers.get('ratelimit-remaining'))).toBeLessThan(cost);
  expect(res.headers.get('ratelimit-policy')).toBe(`${limit};w=${windowS}`);
  const reset = Number(res.headers.get('ratelimit-reset'));
  expect(reset * 1000).toBeGreaterThan(clock.ms());
  return reset;
}

describe('Bluesky simulator rate limits', () => {
  it('spends 3 write points per post out of 5,000 an hour per account, then 429 until ratelimit-reset', async () => {
    const alice = await session('alice.bsky.social');
    const first = await post(alice, 'first');
    expect(first.headers.get('ratelimit-remaining')).toBe('4997');
    expect(first.headers.get('ratelimit-policy')).toBe('5000;w=3600');
    // 5,000 / 3 = 1,666 posts in the hour; the 1,667th would need 5,001 points.
    const { passed, stopped } = await until(1700, 429, (i) => post(alice, `post ${i}`));
    expect(passed).toHaveLength(1665);
    const reset = expectRateLimited(stopped, 5000, 3600, 3);
    // Another account has its own budget.
    const bob = await session('bob.bsky.social');
    expect((await post(bob, 'bob')).status).toBe(200);
    clock.advance(reset * 1000 - clock.ms());
    expect((await post(alice, 'after the reset')).status).toBe(200);
  });

  it('caps an account at 35,000 points a day across hours', async () => {
    const carol = await session('carol.bsky.social');
    let posted = 0;
    let last: Answer | null = null;
    for (let hour = 0; hour < 8 && !last; hour++) {
      for (let i = 0; i < 1666; i++) {
        const res = await post(carol, `h${hour} ${i}`);
        if (res.status === 429) {
          last = res;
          break;
        }
        posted++;
      }
      clock.advance(3_600_000);
    }
    expect(posted).toBe(Math.floor(35_000 / 3));
    clock.advance(-3_600_000);
    const reset = expectRateLimited(last!, 35000, 86400, 3);
    clock.advance(reset * 1000 - clock.ms());
    expect((await post(carol, 'next day')).status).toBe(200);
  }, 60_000);

  it('allows 30 createSession calls per account in 5 minutes', async () => {
    const { passed, stopped } = await until(40, 429, () => login('dave.bsky.social'));
    expect(passed).toHaveLength(30);
    const reset = expectRateLimited(stopped, 30, 300);
    expect((await login('erin.bsky.social')).status).toBe(200);
    clock.advance(reset * 1000 - clock.ms());
    expect((await login('dave.bsky.social')).status).toBe(200);
  });

  it('lets everything through with _config {rateLimits: false}', async () => {
    await call(sandbox, 'POST', '/sandbox/bluesky/_config', { rateLimits: false });
    for (let i = 0; i < 40; i++) expect((await login('frank.bsky.social')).status).toBe(200);
  });
});
