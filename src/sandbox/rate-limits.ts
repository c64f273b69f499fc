import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The simulators' rate-limit machinery: counters keyed by rule and scope (an app, an account, a
 * destination), read against the simulator's own clock so a test advances time instead of sleeping.
 * Each simulator declares its platform's documented rules (`LimitRule`) and answers a refusal in its
 * platform's own shape; this module only counts. `POST /_config {rateLimits: false}` turns every rule off,
 * `POST /_reset` forgets every count.
 */

/** One documented limit: at most `limit` points per `windowMs` in one scope. */
export interface LimitRule {
  /** Stable name, unique within a simulator (it keys the counters and names the rule in docs and tests). */
  readonly name: string;
  /** Points allowed in one window (requests, when each call costs 1). */
  readonly limit: number;
  /** Length of the window in milliseconds. */
  readonly windowMs: number;
  /**
   * `fixed` (default): the window opens at the first call in the scope and resets whole when it ends, the
   * way X, Reddit and the Bluesky PDS count. `sliding`: each call's points free up `windowMs` after it was
   * made (Telegram's per-second bursts, Instagram's "24-hour moving period").
   */
  readonly kind?: 'fixed' | 'sliding';
  /** For calendar windows (YouTube's midnight Pacific, LinkedIn's midnight UTC): the end of the window holding `nowMs`. */
  readonly resetAt?: (nowMs: number) => number;
}

/** The state of one rule in one scope, after a call was counted or refused. */
export interface LimitStatus {
  readonly rule: LimitRule;
  readonly key: string;
  readonly limit: number;
  readonly used: number;
  readonly remaining: number;
  /** When the points the refused call needed are free again (fixed: the window's end), epoch ms. */
  readonly resetAtMs: number;
  /** How long to wait from now, ms (0 when the call went through). */
  readonly retryAfterMs: number;
}

/** One rule applied to one scope, with the call's cost (default 1). */
export type LimitCharge = readonly [rule: LimitRule, key: string, cost?: number];

export type LimitVerdict =
  | { ok: true; statuses: LimitStatus[] }
  | { ok: false; refused: LimitStatus; statuses: LimitStatus[] };

interface FixedWindow {
  start: number;
  end: number;
  used: number;
}

/** Sweep expired counters once this many were created since the last sweep (bounds memory on long runs). */
const SWEEP_EVERY = 10_000;

export class RateLimiter {
  private readonly fixed = new Map<string, FixedWindow>();
  private readonly sliding = new Map<string, { at: number; cost: number }[]>();
  private created = 0;

  /**
   * @param now the simulator's clock, epoch ms.
   * @param enabled whether rules apply (`_config {rateLimits}`); when off nothing is counted either.
   */
  constructor(
    private readonly now: () => number,
    private readonly enabled: () => boolean,
  ) {}

  /**
   * Counts a call against every charge, all or nothing: when any rule has no room, nothing is counted and
   * the refusal names the rule that frees up last (the wait that makes the call succeed).
   */
  take(charges: readonly LimitCharge[]): LimitVerdict {
    if (!this.enabled()) return { ok: true, statuses: [] };
    const now = this.now();
    const statuses = charges.map(([rule, key, cost = 1]) => this.status(rule, key, cost, now));
    const refusals = statuses.filter((s) => s.retryAfterMs > 0);
    if (refusals.length) {
      const refused = refusals.reduce((a, b) => (b.retryAfterMs > a.retryAfterMs ? b : a));
      return { ok: false, refused, statuses };
    }
    const after = charges.map(([rule, key, cost = 1]) => this.count(rule, key, cost, now));
    return { ok: true, statuses: after };
  }

  /** What a rule has used in a scope, without counting anything. */
  peek(rule: LimitRule, key: string): LimitStatus {
    return this.status(rule, key, 0, this.now());
  }

  /** Forgets every count (`_reset`). */
  clear(): void {
    this.fixed.clear();
    this.sliding.clear();
  }

  private id(rule: LimitRule, key: string): string {
    return `${rule.name}\u0000${key}`;
  }

  private window(rule: LimitRule, key: string, now: number): FixedWindow | null {
    const w = this.fixed.get(this.id(rule, key));
    return w && w.end > now ? w : null;
  }

  private log(rule: LimitRule, key: string, now: number): { at: number; cost: number }[] {
    const id = this.id(rule, key);
    const entries = this.sliding.get(id);
    if (!entries) return [];
    while (entries.length && entries[0].at + rule.windowMs <= now) entries.shift();
    if (!entries.length) this.sliding.delete(id);
    return entries;
  }

  private status(rule: LimitRule, key: string, cost: number, now: number): LimitStatus {
    if (rule.kind === 'sliding') {
      const entries = this.log(rule, key, now);
      const used = entries.reduce((n, e) => n + e.cost, 0);
      // The wait: until enough of the oldest calls leave the window for this call's cost to fit.
      let excess = used + cost - rule.limit;
      let freeAt = now;
      for (const e of entries) {
        if (excess <= 0) break;
        excess -= e.cost;
        freeAt = e.at + rule.windowMs;
      }
      const retryAfterMs = cost > 0 && used + cost > rule.limit ? Math.max(1, freeAt - now) : 0;
      const resetAtMs = entries.length ? entries[0].at + rule.windowMs : now + rule.windowMs;
      return {
        rule,
        key,
        limit: rule.limit,
        used,
        remaining: Math.max(0, rule.limit - used),
        resetAtMs: retryAfterMs ? freeAt : resetAtMs,
        retryAfterMs,
      };
    }
    const w = this.window(rule, key, now);
    const used = w?.used ?? 0;
    const end = w?.end ?? this.windowEnd(rule, now);
    const retryAfterMs = cost > 0 && used + cost > rule.limit ? Math.max(1, end - now) : 0;
    return {
      rule,
      key,
      limit: rule.limit,
      used,
      remaining: Math.max(0, rule.limit - used),
      resetAtMs: end,
      retryAfterMs,
    };
  }

  private count(rule: LimitRule, key: string, cost: number, now: number): LimitStatus {
    if (rule.kind === 'sliding') {
      const id = this.id(rule, key);
      const entries = this.log(rule, key, now);
      if (!this.sliding.has(id)) {
        this.sliding.set(id, entries);
        this.noteCreated(now);
      }
      entries.push({ at: now, cost });
      return this.status(rule, key, 0, now);
    }
    let w = this.window(rule, key, now);
    if (!w) {
      w = { start: now, end: this.windowEnd(rule, now), used: 0 };
      this.fixed.set(this.id(rule, key), w);
      this.noteCreated(now);
    }
    w.used += cost;
    return {
      rule,
      key,
      limit: rule.limit,
      used: w.used,
      remaining: Math.max(0, rule.limit - w.used),
      resetAtMs: w.end,
      retryAfterMs: 0,
    };
  }

  private windowEnd(rule: LimitRule, now: number): number {
    return rule.resetAt ? rule.resetAt(now) : now + rule.windowMs;
  }

  private noteCreated(now: number): void {
    if (++this.created < SWEEP_EVERY) return;
    this.created = 0;
    for (const [id, w] of this.fixed) if (w.end <= now) this.fixed.delete(id);
    for (const [id, entries] of this.sliding) {
      const last = entries[entries.length - 1];
      // The longest sliding window any simulator declares is a day.
      if (!last || last.at + 86_400_000 <= now) this.sliding.delete(id);
    }
  }
}

/** The next midnight UTC after `nowMs` (LinkedIn's daily limits reset then). */
export function nextMidnightUtc(nowMs: number): number {
  const d = new Date(nowMs);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
}

/** The next midnight in America/Los_Angeles after `nowMs` (YouTube's daily quota resets then), DST included. */
export function nextMidnightPacific(nowMs: number): number {
  const wall = (ms: number) => {
    const p = new Intl.DateTimeFormat('en-US', {
      timeZone: 'America/Los_Angeles',
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(new Date(ms))
      .reduce<Record<string, number>>(
        (acc, x) => (x.type === 'literal' ? acc : { ...acc, [x.type]: Number(x.value) }),
        {},
      );
    // The zone's offset at `ms`: its wall-clock time read as UTC, minus the instant.
    return {
      year: p.year,
      month: p.month,
      day: p.day,
      offset: Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000,
    };
  };
  const today = wall(nowMs);
  const midnightAsUtc = Date.UTC(today.year, today.month - 1, today.day + 1);
  // The offset at midnight may differ from now's when a DST switch (2am) falls in between.
  return midnightAsUtc - wall(midnightAsUtc - today.offset).offset;
}

/** Whole seconds, rounded up, of a wait (every platform's hint is in seconds). */
export function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** A simulator's rules as a hook: which charges a request makes, and how the platform refuses one. */
export interface RouteLimits {
  /** The charges of a request (none when no rule applies, e.g. without a token: the route answers 401 itself). */
  charges(request: FastifyRequest): LimitCharge[];
  /** Sends the platform's own answer to a refused call. */
  refuse(reply: FastifyReply, refused: LimitStatus): void;
  /** Headers the platform sends on counted calls, if any. */
  headers?(reply: FastifyReply, statuses: LimitStatus[]): void;
}

/**
 * Enforces `limits` on a simulator's own routes (not the `/_` controls) before their handlers run, so a
 * refused call records nothing.
 */
export function enforceLimits(app: FastifyInstance, state: { limits: RateLimiter }, limits: RouteLimits): void {
  app.addHook('preHandler', async (request, reply) => {
    if (request.url.includes('/_')) return;
    const charges = limits.charges(request);
    if (!charges.length) return;
    const verdict = state.limits.take(charges);
    limits.headers?.(reply, verdict.ok ? verdict.statuses : [verdict.refused]);
    if (!verdict.ok) {
      limits.refuse(reply, verdict.refused);
      return reply;
    }
  });
}

/** The route pattern a request matched, with its method (`POST /v2/post/publish/video/init/`), prefix stripped. */
export function routeOf(request: FastifyRequest, prefix: string): string {
  const url = request.routeOptions.url ?? '';
  return `${request.method} ${url.startsWith(prefix) ? url.slice(prefix.length) : url}`;
}
