import { Redis } from 'ioredis';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  resetAt: number;
}

/** Fixed one-minute windows per key. `hit` answers at once when it can (in process), else a promise. */
export interface RateLimiter {
  hit(key: string, limit: number, now: Date): RateDecision | Promise<RateDecision>;
  close(): Promise<void>;
}

const WINDOW_MS = 60_000;

function decide(count: number, limit: number, windowStart: number): RateDecision {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetAt: Math.ceil((windowStart + WINDOW_MS) / 1000),
  };
}

/** In-process counters: right for one process; use Redis when several share the limit. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  hit(key: string, limit: number, now: Date): RateDecision {
    const start = Math.floor(now.getTime() / WINDOW_MS) * WINDOW_MS;
    let w = this.windows.get(key);
    if (!w || w.start !== start) {
      if (this.windows.size > 50_000) this.prune(start);
      w = { start, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    return decide(w.count, limit, start);
  }

  private prune(currentStart: number): void {
    for (const [k, w] of this.windows) if (w.start !== currentStart) this.windows.delete(k);
  }

  async close(): Promise<void> {}
}

/** Counters in Redis (INCR + PEXPIRE in one round trip), so several Herald processes enforce one limit. */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  constructor(url: string, private readonly prefix = 'herald:rl:') {
    this.redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
    this.redis.on('error', () => {});
  }

  async hit(key: string, limit: number, now: Date): Promise<RateDecision> {
    const start = Math.floor(now.getTime() / WINDOW_MS) * WINDOW_MS;
    const redisKey = `${this.prefix}${key}:${start}`;
    const res = await this.redis.multi().incr(redisKey).pexpire(redisKey, WINDOW_MS * 2).exec();
    const count = Number(res?.[0]?.[1] ?? 1);
    return decide(count, limit, start);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
