/*
 * Budgets as a generic cell rate algorithm (GCRA), the token bucket kept as one number per budget: its
 * theoretical arrival time (TAT). A publish is allowed at `t` when `t >= TAT - burstMs`, and moves TAT on
 * by `costMs`. A request that is not allowed now is not refused: it RESERVES the first time it will be
 * (TAT moves on all the same), so ten thousand publishes waiting on one budget each get a time of their
 * own and are claimed once, at that time, instead of all retrying at the first free slot.
 */

/** One budget a publish draws from, with its limit already turned into times (see `budgetOf`). */
export interface Budget {
  key: string;
  /** Budget time one publish uses: windowMs * cost / limit (times the processes sharing it). */
  costMs: number;
  /** How far a burst may run ahead of the steady pace: windowMs - costMs (the bucket's capacity). */
  burstMs: number;
}

/** A limit of `limit` units per `windowMs`, a publish costing `cost`, taken by one of `share` processes. */
export function budgetOf(key: string, limit: number, windowMs: number, cost: number, share: number): Budget {
  const costMs = (windowMs * cost * Math.max(1, share)) / limit;
  return { key, costMs, burstMs: Math.max(0, windowMs - costMs) };
}

export interface BudgetState {
  tat: number;
  /** A platform's 429 said: nothing before this time. */
  pausedUntil: number;
}

/**
 * Reserves one publish on every budget at the earliest time all of them allow (and none is paused), and
 * returns that time (<= now: send now). Mutates `states`.
 */
export function reserve(states: Map<string, BudgetState>, budgets: Budget[], now: number): number {
  let at = now;
  for (const b of budgets) {
    const s = states.get(b.key);
    if (!s) continue;
    at = Math.max(at, s.tat - b.burstMs, s.pausedUntil);
  }
  for (const b of budgets) {
    // A budget of no cost only carries a pause (an account that declares no limit of its own).
    if (b.costMs === 0) continue;
    const s = states.get(b.key) ?? { tat: 0, pausedUntil: 0 };
    s.tat = Math.max(s.tat, at) + b.costMs;
    states.set(b.key, s);
  }
  return at;
}

/** Nothing on `key` before `until` (a 429's hint). */
export function pause(states: Map<string, BudgetState>, key: string, until: number): void {
  const s = states.get(key) ?? { tat: 0, pausedUntil: 0 };
  s.pausedUntil = Math.max(s.pausedUntil, until);
  states.set(key, s);
}

/** Drops budgets back at rest (full, not paused): they hold nothing a fresh state would not. */
export function sweep(states: Map<string, BudgetState>, now: number): void {
  for (const [key, s] of states) if (s.tat <= now && s.pausedUntil <= now) states.delete(key);
}
