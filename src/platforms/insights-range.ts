import { invalid } from '../errors.js';

/*
 * The date range of the hosted API's account insights routes (Instagram, Facebook, YouTube, TikTok,
 * LinkedIn): `fromDate`/`toDate` as YYYY-MM-DD (or their old names `since`/`until`), default the 30 days
 * ending today, at most `maxDays`. A bad date or range is a 400 before the platform is called.
 */

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

function day(value: string | undefined, field: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  const parsed = DATE.test(value) ? new Date(`${value}T00:00:00Z`) : null;
  if (!parsed || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== value)
    throw invalid('invalid_date', `Invalid ${field} format. Use YYYY-MM-DD.`, {
      fields: { [field]: ['must be a date (YYYY-MM-DD)'] },
    });
  return value;
}

export function insightsRange(
  q: { fromDate?: string; toDate?: string; since?: string; until?: string },
  now: Date,
  maxDays: number,
): { since: string; until: string } {
  const until = day(q.toDate ?? q.until, q.toDate ? 'toDate' : 'until') ?? now.toISOString().slice(0, 10);
  const since =
    day(q.fromDate ?? q.since, q.fromDate ? 'fromDate' : 'since') ??
    new Date(Date.parse(`${until}T00:00:00Z`) - 29 * DAY_MS).toISOString().slice(0, 10);
  const days = (Date.parse(until) - Date.parse(since)) / DAY_MS;
  if (days < 0)
    throw invalid('invalid_date_range', 'fromDate must not be after toDate', {
      fields: { fromDate: ['must not be after toDate'] },
    });
  if (days >= maxDays)
    throw invalid('invalid_date_range', `The date range is at most ${maxDays} days`, {
      fields: { fromDate: [`must be within ${maxDays} days of toDate`] },
    });
  return { since, until };
}

/** A comma-separated list of names, each one of `valid` (a 400 naming the others), or `fallback`. */
export function metricList(value: string | undefined, valid: readonly string[], fallback: readonly string[]): string[] {
  const asked = value
    ? [
        ...new Set(
          value
            .split(',')
            .map((m) => m.trim())
            .filter(Boolean),
        ),
      ]
    : [...fallback];
  const unknown = asked.filter((m) => !valid.includes(m));
  if (unknown.length || !asked.length)
    throw invalid(
      'invalid_metrics',
      `Invalid metrics: ${unknown.join(', ') || '(none)'}. Valid options: ${valid.join(', ')}`,
      {
        validOptions: [...valid],
      },
    );
  return asked;
}

export interface FollowerSeries {
  /** The count of each day that has a read. */
  follower_count: { date: string; value: number }[];
  /** Per day, the rise since the previous read (0 on a fall), and the fall (0 on a rise). */
  followers_gained: { date: string; value: number }[];
  followers_lost: { date: string; value: number }[];
}

/**
 * Daily follower counts (`reads`, oldest first, possibly starting before `since`) as the hosted API's
 * follower metrics over [since, until]: each day's count, and the gains and losses between consecutive
 * reads, a day counted from the read before it (which may be the day before `since`).
 */
export function followerSeries(reads: { date: string; value: number }[], since: string, until: string): FollowerSeries {
  const out: FollowerSeries = { follower_count: [], followers_gained: [], followers_lost: [] };
  let previous: number | null = null;
  for (const r of reads) {
    if (r.date > until) break;
    if (r.date >= since) {
      out.follower_count.push(r);
      const delta = previous === null ? 0 : r.value - previous;
      out.followers_gained.push({ date: r.date, value: Math.max(0, delta) });
      out.followers_lost.push({ date: r.date, value: Math.max(0, -delta) });
    }
    previous = r.value;
  }
  return out;
}

/** The day before `day` (YYYY-MM-DD). */
export const dayBefore = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10);
