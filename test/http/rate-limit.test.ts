import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisRateLimiter } from '../../src/http/rate-limit.js';
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

describe('rate limits', () => {
  it('puts X-RateLimit headers on every authenticated response and 429s past the plan limit', async () => {
    const { apiKey } = await env.createUser({ plan: 'free' });
    const resetAt = Date.parse('2026-03-02T10:01:00.000Z') / 1000;
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
    expect(limited.headers['retry-after']).toBe('50');
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    const rows = await env.ctx.db.kysely.selectFrom('profile').select('name').where('name', '=', 'too many').execute();
    expect(rows).toHaveLength(0);

    // Errors carry the headers too.
    env.clock.advance(60_000);
    const notFound = await env.request(apiKey, 'GET', '/v1/profiles/000000000000000000000000');
    expect(notFound.status).toBe(404);
    expect(notFound.headers['x-ratelimit-remaining']).toBe('59');
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

  it('shares one limit between processes through Redis', async (t) => {
    if (!(await redisReachable())) {
      t.skip(`no Redis at ${REDIS_URL}`);
      return;
    }
    const prefix = `herald:test:${Date.now()}:${Math.random()}:`;
    const one = new RedisRateLimiter(REDIS_URL, prefix);
    const two = new RedisRateLimiter(REDIS_URL, prefix);
    try {
      const now = new Date('2026-03-02T10:00:10.000Z');
      const decisions = [];
      for (let i = 0; i < 6; i++) decisions.push(await (i % 2 ? one : two).hit('tenant-x', 5, now));
      expect(decisions.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
      expect(decisions[0].resetAt).toBe(Date.parse('2026-03-02T10:01:00.000Z') / 1000);
      const nextWindow = await one.hit('tenant-x', 5, new Date('2026-03-02T10:01:00.000Z'));
      expect(nextWindow).toMatchObject({ allowed: true, remaining: 4 });
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('uses Redis when REDIS_URL is set', async (t) => {
    if (!(await redisReachable())) {
      t.skip(`no Redis at ${REDIS_URL}`);
      return;
    }
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
