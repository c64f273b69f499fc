import { Redis } from 'ioredis';
import { pause, release, reserve, sweep, type Budget, type BudgetState } from './window.js';

/**
 * Where publishing budgets live. In this process (`LocalBudgets`): each of the N live processes takes
 * 1/N of every budget (`setShare`). In Redis (`RedisBudgets`, REDIS_URL): one budget for all processes.
 */
export interface Budgets {
  /** Reserves one publish on each budget; resolves to the time (ms) it may be sent (<= now: now). */
  reserve(budgets: Budget[], now: Date): Promise<number>;
  /** Gives back the place reserved at `at` on these budgets: the platform refused the publish (429). */
  release(keys: string[], at: number): Promise<void>;
  /** A platform's 429: nothing on these keys before `until`. */
  pause(keys: string[], until: Date, now: Date): Promise<void>;
  /** The latest pause among `keys` (0: none). */
  pausedUntil(keys: string[]): Promise<number>;
  /** Processes that split each budget (1 when the budgets are shared). */
  readonly share: number;
  setShare(processes: number): void;
  close(): Promise<void>;
}

/** Budgets in this process's memory; at rest (full) budgets are dropped, so memory follows the busy ones. */
export class LocalBudgets implements Budgets {
  private readonly states = new Map<string, BudgetState>();
  private sinceSweep = 0;
  share = 1;

  async reserve(budgets: Budget[], now: Date): Promise<number> {
    if (++this.sinceSweep >= 10_000) {
      this.sinceSweep = 0;
      sweep(this.states, now.getTime());
    }
    return reserve(this.states, budgets, now.getTime());
  }

  async release(keys: string[], at: number): Promise<void> {
    release(this.states, keys, at);
  }

  async pause(keys: string[], until: Date, _now: Date): Promise<void> {
    for (const key of keys) pause(this.states, key, until.getTime());
  }

  async pausedUntil(keys: string[]): Promise<number> {
    return Math.max(0, ...keys.map((k) => this.states.get(k)?.pausedUntil ?? 0));
  }

  setShare(processes: number): void {
    this.share = Math.max(1, Math.floor(processes));
  }

  async close(): Promise<void> {}
}

/*
 * The same reservation in one Lua script, atomic in Redis: each budget is a sorted set of the times it
 * gave out (score = time), trimmed to its capacity, beside a pause key. KEYS: the budgets' sets, then
 * their pause keys. ARGV: now, a member tag unique to this call, then capacity and windowMs of each
 * budget. Returns the reserved time. A set expires a window after its last time.
 */
const RESERVE_SCRIPT = `
local now = tonumber(ARGV[1])
local tag = ARGV[2]
local n = #KEYS / 2
local at = now
for i = 1, n do
  local paused = tonumber(redis.call('GET', KEYS[n + i]) or '0')
  if paused > at then at = paused end
  local cap = tonumber(ARGV[3 + (i - 1) * 2])
  local win = tonumber(ARGV[4 + (i - 1) * 2])
  if cap > 0 then
    local count = redis.call('ZCARD', KEYS[i])
    if count > 0 then
      local last = tonumber(redis.call('ZRANGE', KEYS[i], -1, -1, 'WITHSCORES')[2])
      if last > at then at = last end
    end
    if count >= cap then
      local kth = tonumber(redis.call('ZRANGE', KEYS[i], count - cap, count - cap, 'WITHSCORES')[2])
      if kth + win > at then at = kth + win end
    end
  end
end
for i = 1, n do
  local cap = tonumber(ARGV[3 + (i - 1) * 2])
  local win = tonumber(ARGV[4 + (i - 1) * 2])
  if cap > 0 then
    redis.call('ZADD', KEYS[i], at, tag)
    redis.call('ZREMRANGEBYRANK', KEYS[i], 0, -(cap + 1))
    redis.call('PEXPIRE', KEYS[i], math.max(1, math.ceil(at - now + win)))
  end
end
return string.format('%.3f', at)`;

/* One place given back on each set: a member with the reserved time (ARGV[1]), whichever process took it. */
const RELEASE_SCRIPT = `
for i = 1, #KEYS do
  local m = redis.call('ZRANGEBYSCORE', KEYS[i], ARGV[1], ARGV[1], 'LIMIT', 0, 1)
  if #m > 0 then redis.call('ZREM', KEYS[i], m[1]) end
end
return 1`;

const PAUSE_SCRIPT = `
local now = tonumber(ARGV[1])
local untilMs = tonumber(ARGV[2])
for i = 1, #KEYS do
  local paused = tonumber(redis.call('GET', KEYS[i]) or '0')
  if untilMs > paused and untilMs > now then
    redis.call('SET', KEYS[i], string.format('%.0f', untilMs), 'PX', math.ceil(untilMs - now))
  end
end
return 1`;

type BudgetRedis = Redis & {
  reserveBudgets(...args: Array<string | number>): Promise<string>;
  pauseBudgets(...args: Array<string | number>): Promise<number>;
  releaseBudgets(...args: Array<string | number>): Promise<number>;
};

/** Budgets in Redis: every process of a deployment draws from the same ones (a sliding window per key). */
export class RedisBudgets implements Budgets {
  private readonly redis: BudgetRedis;
  readonly share = 1;
  /** Set members must be unique across processes: a per-process tag and a counter. */
  private readonly tag = Math.random().toString(36).slice(2, 10);
  private seq = 0;

  constructor(
    url: string,
    private readonly prefix = 'herald:budget:',
  ) {
    const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
    redis.on('error', () => {});
    redis.defineCommand('reserveBudgets', { lua: RESERVE_SCRIPT });
    redis.defineCommand('pauseBudgets', { lua: PAUSE_SCRIPT });
    redis.defineCommand('releaseBudgets', { lua: RELEASE_SCRIPT });
    this.redis = redis as BudgetRedis;
  }

  async reserve(budgets: Budget[], now: Date): Promise<number> {
    if (budgets.length === 0) return now.getTime();
    const keys = [
      ...budgets.map((b) => `${this.prefix}times:${b.key}`),
      ...budgets.map((b) => `${this.prefix}pause:${b.key}`),
    ];
    const args = budgets.flatMap((b) => [b.capacity, b.windowMs]);
    const member = `${now.getTime()}:${this.tag}:${(this.seq = (this.seq + 1) % 1e9)}`;
    return Number(await this.redis.reserveBudgets(keys.length, ...keys, now.getTime(), member, ...args));
  }

  async release(keys: string[], at: number): Promise<void> {
    if (keys.length === 0) return;
    await this.redis.releaseBudgets(keys.length, ...keys.map((k) => `${this.prefix}times:${k}`), at);
  }

  async pause(keys: string[], until: Date, now: Date): Promise<void> {
    if (keys.length === 0) return;
    await this.redis.pauseBudgets(
      keys.length,
      ...keys.map((k) => `${this.prefix}pause:${k}`),
      now.getTime(),
      until.getTime(),
    );
  }

  async pausedUntil(keys: string[]): Promise<number> {
    if (keys.length === 0) return 0;
    const values = await this.redis.mget(...keys.map((k) => `${this.prefix}pause:${k}`));
    return Math.max(0, ...values.map((v) => Number(v ?? 0)));
  }

  setShare(): void {}

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
