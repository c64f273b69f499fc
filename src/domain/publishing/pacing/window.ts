/*
 * Budgets as sliding windows with reservations. A budget allows `capacity` publishes in any `windowMs`
 * (never more, in any window: a token bucket refilled at limit/window would let twice the limit through
 * the first window, 200 Instagram posts in a day of 100). Each budget keeps the times it gave out, in
 * order; a publish may go at `t` when the capacity-th latest of them is at least a window before `t`.
 *
 * A request that cannot go now is not refused: it RESERVES the first time it can (the time is recorded
 * as given), so ten thousand publishes waiting on one budget each get a time of their own and are claimed
 * once, at that time, instead of all retrying at the first free slot. Times on a budget are handed out in
 * order (first come, first served), which keeps each list sorted.
 */

/** One budget a publish draws from (see `budgetOf`). */
export interface Budget {
  key: string;
  /** Publishes allowed in any window; 0: the budget only carries a pause (an account without a limit). */
  capacity: number;
  windowMs: number;
}

/** A limit of `limit` units per `windowMs`, a publish costing `cost` units, taken by one of `share` processes. */
export function budgetOf(key: string, limit: number, windowMs: number, cost: number, share: number): Budget {
  return { key, capacity: Math.max(1, Math.floor(limit / cost / Math.max(1, share))), windowMs };
}

export interface BudgetState {
  /** Times given out, ascending; only the last `capacity` matter. */
  times: number[];
  windowMs: number;
  /** A platform's 429 said: nothing before this time. */
  pausedUntil: number;
}

/** The earliest time at or after `from` that `b` allows. */
function allowedAt(s: BudgetState | undefined, b: Budget, from: number): number {
  if (!s) return from;
  let at = Math.max(from, s.pausedUntil);
  if (b.capacity === 0 || s.times.length === 0) return at;
  at = Math.max(at, s.times[s.times.length - 1]);
  if (s.times.length >= b.capacity) at = Math.max(at, s.times[s.times.length - b.capacity] + b.windowMs);
  return at;
}

/**
 * Reserves one publish on every budget at the earliest time all of them allow (and none is paused), and
 * returns that time (<= now: send now). Mutates `states`.
 */
export function reserve(states: Map<string, BudgetState>, budgets: Budget[], now: number): number {
  let at = now;
  for (const b of budgets) at = Math.max(at, allowedAt(states.get(b.key), b, at));
  for (const b of budgets) {
    if (b.capacity === 0) continue;
    const s = states.get(b.key) ?? { times: [], windowMs: b.windowMs, pausedUntil: 0 };
    s.windowMs = b.windowMs;
    s.times.push(at);
    // Only the last `capacity` times decide anything.
    if (s.times.length > b.capacity) s.times.splice(0, s.times.length - b.capacity);
    states.set(b.key, s);
  }
  return at;
}

/**
 * Gives back a place reserved at `at` on each of `keys`: the platform refused that publish (429), so it
 * counted nothing there. A place already out of the last `capacity` times decides nothing any more.
 */
export function release(states: Map<string, BudgetState>, keys: string[], at: number): void {
  for (const key of keys) {
    const times = states.get(key)?.times;
    const i = times ? times.lastIndexOf(at) : -1;
    if (times && i >= 0) times.splice(i, 1);
  }
}

/** Nothing on `key` before `until` (a 429's hint). */
export function pause(states: Map<string, BudgetState>, key: string, until: number): void {
  const s = states.get(key) ?? { times: [], windowMs: 0, pausedUntil: 0 };
  s.pausedUntil = Math.max(s.pausedUntil, until);
  states.set(key, s);
}

/** Drops budgets that hold nothing any more: no pause to come and no time given out within a window of now. */
export function sweep(states: Map<string, BudgetState>, now: number): void {
  for (const [key, s] of states) {
    const last = s.times.length ? s.times[s.times.length - 1] : -Infinity;
    if (s.pausedUntil <= now && last + s.windowMs <= now) states.delete(key);
  }
}
