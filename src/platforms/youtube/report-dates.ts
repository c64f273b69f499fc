import { invalid } from '../../errors.js';

/*
 * Dates of the YouTube Analytics routes: YYYY-MM-DD in UTC, and YouTube's reporting delay. YouTube
 * finalizes a day's analytics about three days later; the days after that are provisional (they may
 * still be revised) or not reported yet.
 */

const DAY_MS = 86_400_000;
/** The newest fully finalized day is this many days before today. */
const DELAY_DAYS = 3;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** `value` when it is a real YYYY-MM-DD date (400 `invalid_date` naming `field` otherwise), else `fallback`'s day. */
export function day(value: string | undefined, field: string, fallback: Date): string {
  if (value === undefined || value === '') return fallback.toISOString().slice(0, 10);
  const parsed = new Date(`${value}T00:00:00Z`);
  if (!DATE.test(value) || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== value) {
    throw invalid('invalid_date', `Invalid ${field} format. Use YYYY-MM-DD.`, {
      fields: { [field]: ['must be a date (YYYY-MM-DD)'] },
    });
  }
  return value;
}

/** The day `days` days from `date` (YYYY-MM-DD). */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The newest finalized day at `now`. */
export const finalizedDay = (now: Date) => addDays(now.toISOString().slice(0, 10), -DELAY_DAYS);

/** The first day of `startDate`..`endDate` inside the delay window, or undefined when the range is all final. */
export function provisionalSince(startDate: string, endDate: string, now: Date): string | undefined {
  const first = addDays(finalizedDay(now), 1);
  if (endDate < first) return undefined;
  return startDate > first ? startDate : first;
}

/** Every day from `from` to `to`, both included. */
export function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
}
