import { Redis } from 'ioredis';
import { pause, reserve, sweep, type Budget, type BudgetState } from './gcra.js';

/**
 * Where publishing budgets live. In this process (`LocalBudgets`): each of the N live processes takes
 * 1/N of every budget (`setShare`). In Redis (`RedisBudgets`, REDIS_URL): one budget for all processes.
 */
export interface Budgets {
  /** Reserves one publish on each budget; resolves to the time (ms) it may be sent (<= now: now). */
  reserve(budgets: Budget[], now: Date): Promise<number>;
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
 * The same reservation in one Lua script, atomic in Redis. KEYS: the budgets' TAT keys, then their pause
 * keys. ARGV: now, then costMs and burstMs of each budget. Returns the reserved time. Each key expires
 * once its budget is back at rest.
 */
const RESERVE_SCRIPT = `
local now = tonumber(ARGV[1])
local n = #KEYS / 2
local at = now
for i = 1, n do
  local tat = tonumber(redis.call('GET', KEYS[i]) or '0')
  local burst = tonumber(ARGV[2 + (i - 1) * 2 + 1])
  if tat - burst > at then at = tat - burst end
  local paused = tonumber(redis.call('GET', KEYS[n + i]) or '0')
  if paused > at then at = paused end
end
for i = 1, n do
  local tat = tonumber(redis.call('GET', KEYS[i]) or '0')
  local cost = tonumber(ARGV[2 + (i - 1) * 2])
  if cost > 0 then
    if tat < at then tat = at end
    tat = tat + cost
    redis.call('SET', KEYS[i], string.format('%.3f', tat), 'PX', math.max(1, math.ceil(tat - now)))
  end
end
return string.format('%.3f', at)`;

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
};

/** Budgets in Redis: every process of a deployment draws from the same ones (a token bucket per key). */
export class RedisBudgets implements Budgets {
  private readonly redis: BudgetRedis;
  readonly share = 1;

  constructor(url: string, private readonly prefix = 'herald:budget:') {
    const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
    redis.on('error', () => {});
    redis.defineCommand('reserveBudgets', { lua: RESERVE_SCRIPT });
    redis.defineCommand('pauseBudgets', { lua: PAUSE_SCRIPT });
    this.redis = redis as BudgetRedis;
  }

  async reserve(budgets: Budget[], now: Date): Promise<number> {
    if (budgets.length === 0) return now.getTime();
    const keys = [...budgets.map((b) => `${this.prefix}tat:${b.key}`), ...budgets.map((b) => `${this.prefix}pause:${b.key}`)];
    const args = budgets.flatMap((b) => [b.costMs, b.burstMs]);
    return Number(await this.redis.reserveBudgets(keys.length, ...keys, now.getTime(), ...args));
  }

  async pause(keys: string[], until: Date, now: Date): Promise<void> {
    if (keys.length === 0) return;
    await this.redis.pauseBudgets(keys.length, ...keys.map((k) => `${this.prefix}pause:${k}`), now.getTime(), until.getTime());
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
