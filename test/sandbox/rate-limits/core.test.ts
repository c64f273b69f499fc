import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextMidnightPacific, nextMidnightUtc, RateLimiter, type LimitRule } from '../../../src/sandbox/rate-limits.js';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import { telegramSimulator } from '../../../src/sandbox/telegram/index.js';
import { call } from './helpers.js';

describe('RateLimiter', () => {
  const fixed: LimitRule = { name: 'fixed', limit: 3, windowMs: 60_000 };
  const sliding: LimitRule = { name: 'sliding', limit: 3, windowMs: 60_000, kind: 'sliding' };

  it('refuses past a fixed window and says when it resets, counted on the injected clock', () => {
    let t = 1_000_000;
    const limits = new RateLimiter(
      () => t,
      () => true,
    );
    for (let i = 0; i < 3; i++) expect(limits.take([[fixed, 'a']]).ok).toBe(true);
    t += 10_000;
    const refused = limits.take([[fixed, 'a']]);
    expect(refused).toMatchObject({ ok: false, refused: { remaining: 0, retryAfterMs: 50_000, resetAtMs: 1_060_000 } });
    // Another scope has its own count.
    expect(limits.take([[fixed, 'b']]).ok).toBe(true);
    t += 50_000;
    expect(limits.take([[fixed, 'a']]).ok).toBe(true);
  });

  it('frees a sliding window call by call', () => {
    let t = 0;
    const limits = new RateLimiter(
      () => t,
      () => true,
    );
    for (const at of [0, 10_000, 20_000]) {
      t = at;
      expect(limits.take([[sliding, 'a']]).ok).toBe(true);
    }
    t = 30_000;
    const refused = limits.take([[sliding, 'a']]);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.refused.retryAfterMs).toBe(30_000);
    t = 60_000; // the first call left the window
    expect(limits.take([[sliding, 'a']]).ok).toBe(true);
    expect(limits.take([[sliding, 'a']]).ok).toBe(false);
  });

  it('counts all or nothing, weighs costs, and counts nothing when disabled', () => {
    let enabled = true;
    const limits = new RateLimiter(
      () => 0,
      () => enabled,
    );
    expect(
      limits.take([
        [fixed, 'a', 2],
        [sliding, 'a', 2],
      ]).ok,
    ).toBe(true);
    // The fixed rule has 1 point left: a 2-point call is refused and the sliding rule is not charged.
    expect(
      limits.take([
        [fixed, 'a', 2],
        [sliding, 'a', 1],
      ]).ok,
    ).toBe(false);
    expect(limits.peek(sliding, 'a').used).toBe(2);
    enabled = false;
    for (let i = 0; i < 10; i++) expect(limits.take([[fixed, 'a']]).ok).toBe(true);
    enabled = true;
    expect(limits.peek(fixed, 'a').used).toBe(2);
    limits.clear();
    expect(limits.peek(fixed, 'a').used).toBe(0);
  });

  it('finds the next midnight UTC and Pacific (standard and daylight time)', () => {
    expect(new Date(nextMidnightUtc(Date.parse('2026-03-02T23:59:00Z'))).toISOString()).toBe(
      '2026-03-03T00:00:00.000Z',
    );
    expect(new Date(nextMidnightPacific(Date.parse('2026-01-15T12:00:00Z'))).toISOString()).toBe(
      '2026-01-16T08:00:00.000Z',
    );
    expect(new Date(nextMidnightPacific(Date.parse('2026-07-15T12:00:00Z'))).toISOString()).toBe(
      '2026-07-16T07:00:00.000Z',
    );
    // 03:00 UTC on 15 July is still the 14th in Los Angeles.
    expect(new Date(nextMidnightPacific(Date.parse('2026-07-15T03:00:00Z'))).toISOString()).toBe(
      '2026-07-15T07:00:00.000Z',
    );
    // The night DST starts (8 March 2026): the next midnight is already on daylight time.
    expect(new Date(nextMidnightPacific(Date.parse('2026-03-08T09:00:00Z'))).toISOString()).toBe(
      '2026-03-09T07:00:00.000Z',
    );
  });
});

describe('POST /sandbox/<p>/_config rateLimits and latencyMs', () => {
  let sandbox: SandboxServer;
  beforeAll(async () => {
    sandbox = await startSandbox([telegramSimulator()]);
  });
  afterAll(async () => sandbox?.close());

  it('answers the current settings, defaults included, and refuses bad values', async () => {
    await call(sandbox, 'POST', '/sandbox/telegram/_reset');
    expect((await call(sandbox, 'POST', '/sandbox/telegram/_config', {})).body).toMatchObject({
      rateLimits: true,
      latencyMs: [0, 0],
      processingMs: 1000,
    });
    expect(
      (await call(sandbox, 'POST', '/sandbox/telegram/_config', { rateLimits: false, latencyMs: [5, 10] })).body,
    ).toMatchObject({ rateLimits: false, latencyMs: [5, 10] });
    for (const bad of [
      { rateLimits: 'no' },
      { latencyMs: [10, 5] },
      { latencyMs: [1] },
      { latencyMs: [-1, 3] },
      { latencyMs: [0, 1.5] },
    ]) {
      const res = await call(sandbox, 'POST', '/sandbox/telegram/_config', bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    // A refused request changed nothing; _reset restores the defaults.
    expect((await call(sandbox, 'POST', '/sandbox/telegram/_config', {})).body).toMatchObject({
      rateLimits: false,
      latencyMs: [5, 10],
    });
    await call(sandbox, 'POST', '/sandbox/telegram/_reset');
    expect((await call(sandbox, 'POST', '/sandbox/telegram/_config', {})).body).toMatchObject({
      rateLimits: true,
      latencyMs: [0, 0],
    });
  });

  it('delays the platform routes by latencyMs', async () => {
    await call(sandbox, 'POST', '/sandbox/telegram/_config', { latencyMs: [150, 200] });
    const path = '/sandbox/telegram/bot123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAA/getMe';
    const started = performance.now();
    const res = await call(sandbox, 'GET', path);
    const took = performance.now() - started;
    expect(res.status).toBe(200);
    // A delay happened (at least the range's minimum); how long beyond it is not this test's business.
    expect(took).toBeGreaterThanOrEqual(149);
    await call(sandbox, 'POST', '/sandbox/telegram/_reset');
  });
});
