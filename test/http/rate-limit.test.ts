import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from '../../src/http/rate-limit.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

let env: TestEnv;
beforeAll(async () => {
  // A fixed clock 10 s into a minute, so the window and its reset are known.
  env = await createTestEnv({ now: '2026-03-02T10:00:10.000Z' });
});
afterAll(async () => env?.close());

const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
async function redisReachable(): Promise<boolean> {
  const u = new URL(REDIS_URL);
  return new Promise((resolve) => {
    const s = net.connect({ host: u.hostname, port: Number(u.port || 6379) });
    s.setTimeout(1000);
    s.on('connect', () => (s.destroy(), resolve(true)));
    s.on('error', () => resolve(false));
    s.on('timeout', () => (s.destroy(), resolve(false)));
  });
}

/** The Redis tests fail, never skip, without a Redis (a skipped test is one CI never ran): .ci/run starts one. */
async function requireRedis(): Promise<void> {
  if (!(await redisReachable()))
    throw new Error(
      `no Redis at ${REDIS_URL}: the shared rate-limit tests need one (apt-get install -y redis-server; or set TEST_REDIS_URL)`,
    );
}

describe('rate limits', () => {
  it('puts X-RateLimit headers on every authenticated response and 429s past the plan limit', async () => {
    const { apiKey } = await env.createUser({ plan: 'free' });
    // All 60 at one instant: the first slot frees a minute after it.
    const resetAt = Date.parse('2026-03-02T10:01:10.000Z') / 1000;
    for (let i = 1; i <= 60; i++) {
      const res = await env.request(apiKey, 'GET', '/v1/profiles');
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('60');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(60 - i));
      expect(res.headers['x-ratelimit-reset']).toBe(String(resetAt));
    }
    const limited = await env.request(apiKey, 'POST', '/v1/profiles', { name: 'too many' });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limit_exceeded');
    expect(limited.headers['retry-after']).toBe('60');
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    const rows = await env.ctx.db.kysely.selectFrom('profile').select('name').where('name', '=', 'too many').execute();
    expect(rows).toHaveLength(0);

    // Errors carry the headers too.
    env.clock.advance(60_000);
    const notFound = await env.request(apiKey, 'GET', '/v1/profiles/000000000000000000000000');
    expect(notFound.status).toBe(404);
    expect(notFound.headers['x-ratelimit-remaining']).toBe('59');
  });

  it('counts an API key on the connect selection routes (which also take an X-Connect-Token) like any other', async () => {
    const { apiKey } = await env.createUser({ plan: 'free' });
    const list = '/v1/connect/linkedin/organizations?tempToken=tmp_unknown';
    for (let i = 1; i <= 60; i++) {
      const res = await env.request(
        apiKey,
        i % 2 ? 'GET' : 'POST',
        i % 2 ? list : '/v1/connect/linkedin/select-organization',
        i % 2 ? undefined : { profileId: 'x', tempToken: 'tmp_unknown', accountType: 'personal' },
      );
      expect(res.status).toBe(400);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(60 - i));
    }
    const limited = await env.request(apiKey, 'GET', list);
    expect([limited.status, limited.body.code]).toEqual([429, 'rate_limit_exceeded']);
    // The budget is the tenant's: its other routes are refused as well.
    expect((await env.request(apiKey, 'GET', '/v1/profiles')).status).toBe(429);
    env.clock.advance(60_000);
  });

  it('limits per tenant: one tenant spending its budget does not touch another', async () => {
    const a = await env.createUser({ plan: 'free' });
    const b = await env.createUser({ plan: 'free' });
    for (let i = 0; i < 61; i++) await env.request(a.apiKey, 'GET', '/v1/profiles');
    expect((await env.request(a.apiKey, 'GET', '/v1/profiles')).status).toBe(429);
    expect((await env.request(b.apiKey, 'GET', '/v1/profiles')).status).toBe(200);
  });

  it('is read by the official SDK as a rate-limit error', async () => {
    const { apiKey } = await env.createUser({ plan: 'free' });
    for (let i = 0; i < 60; i++) await env.request(apiKey, 'GET', '/v1/profiles');
    const client = await env.sdk(apiKey);
    const err: any = await client.profiles.listProfiles().then(
      () => null,
      (e: any) => e,
    );
    expect(err?.statusCode).toBe(429);
    expect(err.isRateLimited()).toBe(true);
  });

  it('shares one limit between processes through Redis', async () => {
    await requireRedis();
    const prefix = `herald:test:${Date.now()}:${Math.random()}:`;
    const one = new RedisRateLimiter(REDIS_URL, prefix);
    const two = new RedisRateLimiter(REDIS_URL, prefix);
    try {
      const now = new Date('2026-03-02T10:00:10.000Z');
      const decisions = [];
      for (let i = 0; i < 6; i++) decisions.push(await (i % 2 ? one : two).hit('tenant-x', 5, now));
      expect(decisions.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
      expect(decisions[0].resetAt).toBe(Date.parse('2026-03-02T10:01:10.000Z') / 1000);
      // What used to be the next window is still within a minute of those five.
      expect(await one.hit('tenant-x', 5, new Date('2026-03-02T10:01:00.000Z'))).toMatchObject({
        allowed: false,
        remaining: 0,
      });
      const aMinuteLater = await one.hit('tenant-x', 5, new Date('2026-03-02T10:01:10.000Z'));
      expect(aMinuteLater).toMatchObject({ allowed: true, remaining: 4 });
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('lets no more than the limit through in any 60 s span, also across what was a window boundary (HTTP)', async () => {
    const { apiKey } = await env.createUser({ plan: 'free' });
    // 60 requests just before a minute boundary, then a burst just after it: a fixed window let 119 pass.
    env.clock.set(new Date('2026-03-02T11:00:59.500Z'));
    for (let i = 0; i < 60; i++) expect((await env.request(apiKey, 'GET', '/v1/profiles')).status).toBe(200);
    env.clock.set(new Date('2026-03-02T11:01:00.600Z'));
    const after = await env.request(apiKey, 'GET', '/v1/profiles');
    expect(after.status).toBe(429);
    expect(after.headers['x-ratelimit-remaining']).toBe('0');
    // Unix seconds, rounded up: the first of the 60 leaves the window at 11:01:59.5.
    expect(after.headers['x-ratelimit-reset']).toBe(String(Date.parse('2026-03-02T11:02:00.000Z') / 1000));
    expect(after.headers['retry-after']).toBe('60');
    // A minute after them (all 60 were at one instant), the slots come back.
    env.clock.set(new Date('2026-03-02T11:01:59.500Z'));
    const back = await env.request(apiKey, 'GET', '/v1/profiles');
    expect(back.status).toBe(200);
    expect(back.headers['x-ratelimit-remaining']).toBe('59');
  });

  it('keeps the in-process limit without a promise', () => {
    const limiter = new MemoryRateLimiter();
    const d = limiter.hit('k', 2, new Date('2026-03-02T10:00:00.000Z'));
    expect(d).not.toBeInstanceOf(Promise);
    expect(d).toEqual({
      allowed: true,
      limit: 2,
      remaining: 1,
      resetAt: Date.parse('2026-03-02T10:01:00.000Z') / 1000,
    });
  });

  it('in process: no 60 s span holds more than the limit under a random load over several minutes', async () => {
    await expectNoSpanOverLimit(new MemoryRateLimiter());
  });

  it('in Redis: no 60 s span holds more than the limit under a random load over several minutes', async () => {
    await requireRedis();
    const limiter = new RedisRateLimiter(REDIS_URL, `herald:test:${Date.now()}:${Math.random()}:`);
    try {
      await expectNoSpanOverLimit(limiter);
    } finally {
      await limiter.close();
    }
  });

  it('uses Redis when REDIS_URL is set', async () => {
    await requireRedis();
    const shared = await createTestEnv({ env: { REDIS_URL }, now: '2026-03-02T10:00:10.000Z' });
    try {
      expect(shared.ctx.rateLimiter).toBeInstanceOf(RedisRateLimiter);
      const { apiKey } = await shared.createUser({ plan: 'free' });
      const res = await shared.request(apiKey, 'GET', '/v1/profiles');
      expect(res.headers['x-ratelimit-remaining']).toBe('59');
    } finally {
      await shared.close();
    }
  });
});

/**
 * Requests at pseudo-random times over five minutes (bursts at what were window boundaries included),
 * three limiters' worth of keys; checks every 60 s span of admitted requests and that the limiter
 * admits again once the log allows.
 */
async function expectNoSpanOverLimit(limiter: RateLimiter): Promise<void> {
  const limit = 60;
  const start = Date.parse('2026-03-02T10:00:00.000Z');
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const times: number[] = [];
  for (let minute = 0; minute < 5; minute++) {
    // A burst straddling the boundary, and a scatter through the minute.
    for (let i = 0; i < 80; i++) times.push(start + minute * 60_000 + 59_000 + Math.floor(random() * 2000));
    for (let i = 0; i < 80; i++) times.push(start + minute * 60_000 + Math.floor(random() * 60_000));
  }
  times.sort((a, b) => a - b);
  const admitted: number[] = [];
  for (const t of times) {
    const d = await limiter.hit('tenant-span', limit, new Date(t));
    expect(d.limit).toBe(limit);
    if (d.allowed) admitted.push(t);
    else expect(d.resetAt * 1000).toBeGreaterThan(t);
  }
  let first = 0;
  let widest = 0;
  for (let last = 0; last < admitted.length; last++) {
    while (admitted[last] - admitted[first] >= 60_000) first++;
    widest = Math.max(widest, last - first + 1);
  }
  expect(widest).toBe(limit);
  // The limit is used, not starved: over five minutes close to five minutes' worth got through.
  expect(admitted.length).toBeGreaterThanOrEqual(4 * limit);
}
