import { METRIC_NAMES, type PostMetrics } from '../../platforms/types.js';
import type { MetricCounters } from '../../store/schema.js';

/*
 * The definitions behind every analytics figure (README "Analytics" says the same in prose). Pure.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A platform's numbers as the eight counters: whole, non-negative, 0 when the platform has none. */
export function toCounters(m: PostMetrics): MetricCounters {
  const out = {} as MetricCounters;
  for (const name of METRIC_NAMES) {
    const v = Number(m[name] ?? 0);
    out[name] = Number.isFinite(v) && v > 0 ? Math.round(v) : 0;
  }
  return out;
}

/** Engagement: likes + comments + shares + saves (the interactions someone chose to make). */
export function engagementOf(m: Pick<MetricCounters, 'likes' | 'comments' | 'shares' | 'saves'>): number {
  return Number(m.likes) + Number(m.comments) + Number(m.shares) + Number(m.saves);
}

/**
 * Engagement rate, a percentage with two decimals: engagement / impressions x 100; when the platform
 * reports no impressions, over reach, then over views; 0 when it reports none of the three.
 */
export function engagementRateOf(m: MetricCounters): number {
  const base = Number(m.impressions) || Number(m.reach) || Number(m.views);
  if (!base) return 0;
  return Math.round((engagementOf(m) / base) * 10_000) / 100;
}

/**
 * The next read on the schedule: the first age after publishing that is still ahead of `now`; null once
 * every age has passed. A read that ran late skips the ages it overslept rather than catching up.
 */
export function nextCollectAt(publishedAt: Date, now: Date, scheduleMs: readonly number[]): Date | null {
  const age = now.getTime() - publishedAt.getTime();
  const next = scheduleMs.find((a) => a > age);
  return next === undefined ? null : new Date(publishedAt.getTime() + next);
}

/**
 * Content-decay buckets: [start, end) ages after publishing. `column` keeps, per target, the engagement of
 * its last read at or before the bucket's end; the last bucket's is the latest read (the final value).
 */
export const DECAY_BUCKETS = [
  { label: '0-6h', start: 0, end: 6 * HOUR, column: 'reached_6h' },
  { label: '6-12h', start: 6 * HOUR, end: 12 * HOUR, column: 'reached_12h' },
  { label: '12-24h', start: 12 * HOUR, end: DAY, column: 'reached_1d' },
  { label: '1-2d', start: DAY, end: 2 * DAY, column: 'reached_2d' },
  { label: '2-7d', start: 2 * DAY, end: 7 * DAY, column: 'reached_7d' },
  { label: '7-30d', start: 7 * DAY, end: 30 * DAY, column: 'reached_30d' },
  { label: '30d+', start: 30 * DAY, end: Infinity, column: 'engagement' },
] as const;

export type ReachedColumn = Exclude<(typeof DECAY_BUCKETS)[number]['column'], 'engagement'>;

/** The `reached_*` columns a read at `ageMs` sets: every bucket whose end it is at or before. */
export function reachedPatch(ageMs: number, engagement: number): Partial<Record<ReachedColumn, number>> {
  const patch: Partial<Record<ReachedColumn, number>> = {};
  for (const b of DECAY_BUCKETS) {
    if (b.column !== 'engagement' && ageMs <= b.end) patch[b.column] = engagement;
  }
  return patch;
}
