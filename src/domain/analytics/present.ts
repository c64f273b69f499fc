import type { MetricCounters } from '../../store/schema.js';
import { engagementRateOf } from './metrics.js';

/*
 * Analytics rows -> the hosted API's shapes (PostAnalytics, PlatformAnalytics). The one place those are
 * decided.
 */

const ZERO: MetricCounters = {
  impressions: 0,
  reach: 0,
  likes: 0,
  comments: 0,
  shares: 0,
  saves: 0,
  clicks: 0,
  views: 0,
};

export function countersOf(row: Partial<Record<keyof MetricCounters, number | string | null>>): MetricCounters {
  const out = { ...ZERO };
  for (const k of Object.keys(ZERO) as (keyof MetricCounters)[]) out[k] = Number(row[k] ?? 0);
  return out;
}

export function sumCounters(list: MetricCounters[]): MetricCounters {
  const out = { ...ZERO };
  for (const m of list) for (const k of Object.keys(ZERO) as (keyof MetricCounters)[]) out[k] += m[k];
  return out;
}

/** PostAnalytics: the counters, the engagement rate, and when they were read (null before the first read). */
export function presentPostAnalytics(m: MetricCounters, lastUpdated: string | null) {
  return { ...m, engagementRate: engagementRateOf(m), lastUpdated };
}

export interface PlatformAnalyticsSource {
  platform: string;
  status: string;
  account_id: string;
  username: string;
  collected_at: string | null;
  followers_count: number | null;
  followers_updated_at: string | null;
  counters: MetricCounters;
}

/** PlatformAnalytics: one target, with its account's latest follower read. */
export function presentPlatformAnalytics(t: PlatformAnalyticsSource) {
  return {
    platform: t.platform,
    status: t.status,
    accountId: t.account_id,
    accountUsername: t.username,
    analytics: presentPostAnalytics(t.counters, t.collected_at),
    accountMetrics:
      t.followers_count === null || t.followers_count === undefined
        ? null
        : { followers: Number(t.followers_count), subscribers: null, lastUpdated: t.followers_updated_at },
  };
}

/** The latest of some ISO times (null when none). */
export function latest(times: (string | null | undefined)[]): string | null {
  const set = times.filter((t): t is string => !!t).sort();
  return set.length ? set[set.length - 1]! : null;
}
