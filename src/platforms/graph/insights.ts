import { PlatformError } from '../types.js';

/*
 * Graph insights answers, as Facebook, Instagram and Threads send them: `{data: [{name, period, values:
 * [{value, end_time}], title, id}]}` or, for Instagram and Threads totals, `{data: [{name, total_value:
 * {value}}]}`. A value is a number, or an object of numbers by type (`post_reactions_by_type_total`:
 * `{like: 3, love: 1}`), which counts as its sum.
 */

function numberOf(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  if (value && typeof value === 'object')
    return Object.values(value as Record<string, unknown>).reduce<number>((n, v) => n + numberOf(v), 0);
  return 0;
}

/** The latest value of each metric of an insights answer, by metric name. */
export function insightValues(body: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return out;
  for (const item of data as { name?: unknown; values?: { value?: unknown }[]; total_value?: { value?: unknown } }[]) {
    if (typeof item?.name !== 'string') continue;
    if (item.total_value) out[item.name] = numberOf(item.total_value.value);
    else if (Array.isArray(item.values) && item.values.length)
      out[item.name] = numberOf(item.values[item.values.length - 1]?.value);
  }
  return out;
}

/**
 * Reads one item's metrics, leaving out an item the platform refuses to report on (deleted, or not a kind
 * with insights: Graph's code 100): one such item must not stop the account's other reads. Throttling,
 * token and outage errors still throw, so the collection job waits or skips the round.
 */
export async function unlessGone<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof PlatformError && error.kind === 'rejected') return null;
    throw error;
  }
}

/** Unix seconds, as Graph's `since` takes them. */
export const unixSeconds = (d: Date) => String(Math.floor(d.getTime() / 1000));
