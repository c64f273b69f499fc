import { afterAll, describe, expect, it } from 'vitest';
import { LocalBudgets, RedisBudgets, type Budgets } from '../../src/domain/publishing/pacing/budgets.js';
import { pacingFor, type PacedTarget } from '../../src/domain/publishing/pacing/keys.js';
import { descriptorOf } from '../../src/platforms/catalogue.js';
import { CATALOGUE } from '../../src/platforms/catalogue.js';

/*
 * The budgets themselves, with times passed in (no clock, no sleeping): per app, per account, per
 * destination, from the descriptors' declared limits; a pause; and the Redis-shared store, which two
 * processes (two instances here) draw from as one.
 */

const limitsOf = (platform: string) => descriptorOf(platform)!.limits ?? [];
const T0 = Date.UTC(2026, 0, 1);

async function reserveMany(b: Budgets, platform: string, targets: PacedTarget[], at = T0): Promise<number[]> {
  const out: number[] = [];
  for (const t of targets)
    out.push((await b.reserve(pacingFor(limitsOf(platform), t, b.share).budgets, new Date(at))) - at);
  return out;
}

const chat = (id: string, chatType = 'channel'): PacedTarget => ({
  platform: 'telegram',
  accountId: `acc-${id}`,
  accountMetadata: { chatId: id, chatType },
  platformSpecificData: {},
});

describe('platform limits in the descriptors', () => {
  it('declares each limit with a positive budget, a known scope and the page that states it', () => {
    for (const d of CATALOGUE) {
      for (const l of d.limits ?? []) {
        expect(['app', 'account', 'destination']).toContain(l.scope);
        expect(l.limit).toBeGreaterThan(0);
        expect(l.windowMs).toBeGreaterThan(0);
        expect(l.cite).toMatch(/^https:\/\//);
        if (l.scope === 'destination') expect(typeof l.destination).toBe('function');
      }
    }
    expect(CATALOGUE.filter((d) => d.limits === undefined).map((d) => d.id)).toEqual([]);
  });
});

describe('budgets (in process)', () => {
  it('paces one bot to 30 messages a second in all (per app), across chats', async () => {
    const b = new LocalBudgets();
    const times = await reserveMany(
      b,
      'telegram',
      Array.from({ length: 32 }, (_, i) => chat(String(-1001000 - i))),
    );
    expect(times.slice(0, 30).every((t) => t === 0)).toBe(true);
    // Never more than 30 in any second: the next ones go a second after the first.
    expect(times.slice(30)).toEqual([1000, 1000]);
  });

  it('paces one chat to a message a second (per destination), and a group to 20 a minute', async () => {
    const b = new LocalBudgets();
    expect(await reserveMany(b, 'telegram', [chat('-1001'), chat('-1001'), chat('-1001')])).toEqual([0, 1000, 2000]);
    const g = new LocalBudgets();
    const group = Array.from({ length: 21 }, () => chat('-42', 'group'));
    // One a second while the group's 20 a minute last; the 21st waits until the first is a minute old.
    const times = await reserveMany(g, 'telegram', group);
    expect(times.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, i) => i * 1000));
    expect(times[20]).toBe(60_000);
  });

  it('paces an account by its own budget (Instagram: 100 posts in 24 hours), never another account', async () => {
    const b = new LocalBudgets();
    const ig = (id: string): PacedTarget => ({
      platform: 'instagram',
      accountId: id,
      accountMetadata: {},
      platformSpecificData: {},
    });
    const times = await reserveMany(
      b,
      'instagram',
      Array.from({ length: 101 }, () => ig('one')),
    );
    expect(times.slice(0, 100).every((t) => t === 0)).toBe(true);
    expect(times[100]).toBe(86_400_000);
    expect(await reserveMany(b, 'instagram', [ig('two')])).toEqual([0]);
  });

  it("a pause holds the account's publishes until its time, whatever its budget", async () => {
    const b = new LocalBudgets();
    const t = { platform: 'bluesky', accountId: 'paused', accountMetadata: {}, platformSpecificData: {} };
    const { pauseKeys } = pacingFor(limitsOf('bluesky'), t, 1);
    await b.pause(pauseKeys, new Date(T0 + 90_000), new Date(T0));
    expect(await b.pausedUntil(pauseKeys)).toBe(T0 + 90_000);
    expect(await reserveMany(b, 'bluesky', [t])).toEqual([90_000]);
    expect(await reserveMany(b, 'bluesky', [{ ...t, accountId: 'free' }])).toEqual([0]);
  });

  it('gives back the place of a publish the platform refused', async () => {
    const b = new LocalBudgets();
    const targets = Array.from({ length: 31 }, (_, i) => chat(String(-4001000 - i)));
    expect((await reserveMany(b, 'telegram', targets.slice(0, 30))).every((t) => t === 0)).toBe(true);
    const refused = pacingFor(limitsOf('telegram'), targets[0], 1).budgets.map((x) => x.key);
    await b.release(refused, T0);
    // 29 counted in this second: the 31st goes now, the 32nd a second later.
    expect(await reserveMany(b, 'telegram', [targets[30], chat('-4002000')])).toEqual([0, 1000]);
  });

  it('takes 1/N of each budget when N processes share it without Redis', async () => {
    const b = new LocalBudgets();
    b.setShare(3);
    const times = await reserveMany(
      b,
      'telegram',
      Array.from({ length: 11 }, (_, i) => chat(String(-2001000 - i))),
    );
    // 30 a second in all is 10 a second here.
    expect(times.slice(0, 10).every((t) => t === 0)).toBe(true);
    expect(times[10]).toBe(1000);
  });
});

describe('budgets shared through Redis', () => {
  const prefix = `herald-test:${process.pid}:${Date.now()}:`;
  const a = new RedisBudgets('redis://127.0.0.1:6379', prefix);
  const b = new RedisBudgets('redis://127.0.0.1:6379', prefix);
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('is one budget for every process: what one took, the other cannot', async () => {
    const targets = Array.from({ length: 32 }, (_, i) => chat(String(-3001000 - i)));
    const first = await reserveMany(a, 'telegram', targets.slice(0, 20));
    const second = await reserveMany(b, 'telegram', targets.slice(20));
    expect(first.every((t) => t === 0)).toBe(true);
    expect(second.slice(0, 10).every((t) => t === 0)).toBe(true);
    expect(second.slice(10)).toEqual([1000, 1000]);
    expect(a.share).toBe(1);
  });

  it('a place given back by one process is free for the other', async () => {
    // Later than the other tests' reservations on the same app budget.
    const at = T0 + 100_000;
    const targets = Array.from({ length: 31 }, (_, i) => chat(String(-5001000 - i)));
    expect((await reserveMany(a, 'telegram', targets.slice(0, 30), at)).every((t) => t === 0)).toBe(true);
    await a.release(
      pacingFor(limitsOf('telegram'), targets[0], 1).budgets.map((x) => x.key),
      at,
    );
    expect(await reserveMany(b, 'telegram', [targets[30], chat('-5002000')], at)).toEqual([0, 1000]);
  });

  it("a pause set by one process holds the other's publishes", async () => {
    const t = { platform: 'bluesky', accountId: 'redis-paused', accountMetadata: {}, platformSpecificData: {} };
    const { pauseKeys } = pacingFor(limitsOf('bluesky'), t, 1);
    await a.pause(pauseKeys, new Date(T0 + 30_000), new Date(T0));
    expect(await b.pausedUntil(pauseKeys)).toBe(T0 + 30_000);
    expect(await reserveMany(b, 'bluesky', [t])).toEqual([30_000]);
  });
});
