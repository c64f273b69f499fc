import { Redis } from 'ioredis';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the oldest request of the last minute leaves it, so the next one fits. */
  resetAt: number;
}

/**
 * A sliding one-minute log per key: a request is admitted when fewer than `limit` admitted requests fall
 * in the 60 s before it, so no 60 s span ever holds more than `limit` (a fixed window let twice the
 * limit through across its boundary). Refused requests are not counted. `hit` answers at once when it
 * can (in process), else a promise.
 */
export interface RateLimiter {
  hit(key: string, limit: number, now: Date): RateDecision | Promise<RateDecision>;
  close(): Promise<void>;
}

const WINDOW_MS = 60_000;

/**
 * The admitted requests of one key within the last window, oldest first, in a ring that grows as needed
 * up to the limit (a scaled limit can be millions; most keys use a few slots).
 */
class RequestLog {
  times = new Float64Array(8);
  start = 0;
  size = 0;

  oldest(): number {
    return this.times[this.start];
  }

  newest(): number {
    return this.times[(this.start + this.size - 1) % this.times.length];
  }

  /** Drops what left the window; a clock that went back (tests, a corrected host clock) starts over. */
  expire(now: number): void {
    if (this.size > 0 && this.newest() > now) this.size = 0;
    const cap = this.times.length;
    while (this.size > 0 && this.times[this.start] <= now - WINDOW_MS) {
      this.start = (this.start + 1) % cap;
      this.size--;
    }
  }

  /** Moves the entries into a ring of `capacity` slots, keeping the newest that fit (a lower plan). */
  resize(capacity: number): void {
    const keep = Math.min(this.size, capacity);
    const times = new Float64Array(capacity);
    for (let i = 0; i < keep; i++) times[i] = this.times[(this.start + this.size - keep + i) % this.times.length];
    this.times = times;
    this.start = 0;
    this.size = keep;
  }

  add(now: number, limit: number): void {
    if (this.size === this.times.length) this.resize(Math.min(limit, this.times.length * 2));
    this.times[(this.start + this.size) % this.times.length] = now;
    this.size++;
  }
}

function decision(allowed: boolean, limit: number, count: number, oldest: number): RateDecision {
  return { allowed, limit, remaining: Math.max(0, limit - count), resetAt: Math.ceil((oldest + WINDOW_MS) / 1000) };
}

/** In-process logs: right for one process; use Redis when several share the limit. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, RequestLog>();

  hit(key: string, limit: number, now: Date): RateDecision {
    const t = now.getTime();
    const cap = Math.max(1, Math.floor(limit));
    let log = this.logs.get(key);
    if (!log) {
      if (this.logs.size > 50_000) this.prune(t);
      log = new RequestLog();
      this.logs.set(key, log);
    }
    log.expire(t);
    if (log.size > cap) log.resize(cap);
    if (log.size >= cap) return decision(false, limit, log.size, log.oldest());
    log.add(t, cap);
    return decision(true, limit, log.size, log.oldest());
  }

  /** Forgets keys with nothing left in the window. */
  private prune(now: number): void {
    for (const [k, log] of this.logs) {
      log.expire(now);
      if (log.size === 0) this.logs.delete(k);
    }
  }

  async close(): Promise<void> {}
}

/**
 * The same log in a Redis sorted set (score = time in ms), read and written by one Lua script so that
 * concurrent processes cannot both take the last slot. Returns {admitted, count, oldest}.
 */
const SLIDING_LOG_SCRIPT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
if newest[2] and tonumber(newest[2]) > now then redis.call('DEL', key) end
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
if count >= limit then
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return {0, count, oldest[2]}
end
redis.call('ZADD', key, now, ARGV[4])
redis.call('PEXPIRE', key, window)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {1, count + 1, oldest[2]}
`;

type SlidingLogRedis = Redis & {
  slidingLog(
    key: string,
    now: number,
    window: number,
    limit: number,
    member: string,
  ): Promise<[number, number, string]>;
};

/** Logs in Redis, so several Herald processes enforce one limit. */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: SlidingLogRedis;
  /** Members must be unique across processes: a per-process tag and a counter. */
  private readonly tag = Math.random().toString(36).slice(2, 10);
  private seq = 0;

  constructor(
    url: string,
    private readonly prefix = 'herald:rl:',
  ) {
    const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
    redis.on('error', () => {});
    redis.defineCommand('slidingLog', { numberOfKeys: 1, lua: SLIDING_LOG_SCRIPT });
    this.redis = redis as SlidingLogRedis;
  }

  async hit(key: string, limit: number, now: Date): Promise<RateDecision> {
    const t = now.getTime();
    const cap = Math.max(1, Math.floor(limit));
    const member = `${t}:${this.tag}:${(this.seq = (this.seq + 1) % 1e9)}`;
    const [admitted, count, oldest] = await this.redis.slidingLog(`${this.prefix}${key}`, t, WINDOW_MS, cap, member);
    return decision(admitted === 1, limit, Number(count), Number(oldest));
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
