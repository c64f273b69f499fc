/**
 * Capped exponential backoff with full jitter: attempt 1 waits up to `baseMs`, each further attempt
 * doubles the ceiling, never above `capMs`. `random` is injectable for tests.
 */
export function backoffMs(
  attempt: number,
  opts: { baseMs?: number; capMs?: number; random?: () => number } = {},
): number {
  const base = opts.baseMs ?? 1000;
  const cap = opts.capMs ?? 15 * 60 * 1000;
  const ceiling = Math.min(cap, base * 2 ** Math.max(0, attempt - 1));
  const random = opts.random ?? Math.random;
  // Half fixed, half jitter: never retries immediately, still spreads a thundering herd.
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
