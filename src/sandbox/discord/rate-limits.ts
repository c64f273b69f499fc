import type { FastifyReply } from 'fastify';

/*
 * Discord's rate limits (https://discord.com/developers/docs/topics/rate-limits): a global limit of 50
 * requests per second per bot, and per-route buckets keyed by the route and its top-level resource
 * (channel, guild or webhook id). Every answer carries `X-RateLimit-Limit`, `-Remaining`, `-Reset`
 * (epoch seconds), `-Reset-After` (seconds) and `-Bucket`; a 429 carries `Retry-After`, `X-RateLimit-Scope`
 * (`user` or `global`), `X-RateLimit-Global` when global, and the body `{code, message, retry_after, global}`
 * (the OpenAPI document's RatelimitedResponse requires `code` besides what the docs' example shows).
 * The per-route numbers are not published (the docs say to read the headers); those below are what
 * Discord's headers report for them: 5 messages per 5 s per channel, 5 deletes per second per channel,
 * 10 per 10 s elsewhere.
 */

const GLOBAL_PER_SECOND = 50;

interface Rule {
  limit: number;
  windowMs: number;
}

function ruleOf(method: string, route: string): Rule {
  if (method === 'POST' && /\/channels\/:channel_id\/messages$/.test(route)) return { limit: 5, windowMs: 5_000 };
  if (method === 'DELETE' && /\/messages\/:message_id$/.test(route)) return { limit: 5, windowMs: 1_000 };
  return { limit: 10, windowMs: 10_000 };
}

interface Window {
  start: number;
  count: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Window>();
  private readonly global = new Map<string, Window>();

  private take(map: Map<string, Window>, key: string, rule: Rule, now: number): { ok: boolean; window: Window } {
    let w = map.get(key);
    if (!w || now - w.start >= rule.windowMs) {
      w = { start: now, count: 0 };
      map.set(key, w);
    }
    if (w.count >= rule.limit) return { ok: false, window: w };
    w.count++;
    return { ok: true, window: w };
  }

  /**
   * Counts one request; sets the headers. Returns the 429 body when over a limit (nothing is counted
   * then), or null.
   */
  check(
    reply: FastifyReply,
    bot: string,
    method: string,
    route: string,
    major: string,
    now = Date.now(),
  ): { code: number; message: string; retry_after: number; global: boolean } | null {
    const g = this.take(this.global, bot, { limit: GLOBAL_PER_SECOND, windowMs: 1_000 }, now);
    if (!g.ok) {
      const after = Math.max(0.001, (g.window.start + 1_000 - now) / 1000);
      reply
        .header('retry-after', String(Math.ceil(after)))
        .header('x-ratelimit-global', 'true')
        .header('x-ratelimit-scope', 'global');
      return { code: 0, message: 'You are being rate limited.', retry_after: Number(after.toFixed(3)), global: true };
    }
    const rule = ruleOf(method, route);
    const bucket = `${method} ${route.replace(/:(?!channel_id|guild_id|webhook_id)[a-z_]+/g, '*')}`;
    const b = this.take(this.buckets, `${bot} ${bucket} ${major}`, rule, now);
    const resetAt = b.window.start + rule.windowMs;
    const after = Math.max(0.001, (resetAt - now) / 1000);
    reply
      .header('x-ratelimit-limit', String(rule.limit))
      .header('x-ratelimit-remaining', String(Math.max(0, rule.limit - b.window.count)))
      .header('x-ratelimit-reset', (resetAt / 1000).toFixed(3))
      .header('x-ratelimit-reset-after', after.toFixed(3))
      .header('x-ratelimit-bucket', Buffer.from(bucket).toString('hex').slice(0, 32));
    if (b.ok) return null;
    reply.header('retry-after', String(Math.ceil(after))).header('x-ratelimit-scope', 'user');
    return { code: 0, message: 'You are being rate limited.', retry_after: Number(after.toFixed(3)), global: false };
  }

  clear(): void {
    this.buckets.clear();
    this.global.clear();
  }
}
