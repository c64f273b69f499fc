import { createHash } from 'node:crypto';
import { dayMetrics } from '../metrics.js';
import type { YtVideo } from './store.js';

/*
 * The channel reports the YouTube Analytics simulator serves (analytics.ts), each with the dimensions,
 * metrics and filters YouTube lists for it, and the numbers it reports: pure functions of the videos, the
 * days and the clock, exported so that tests can predict them.
 * https://developers.google.com/youtube/analytics/channel_reports
 * - basic stats (no dimension) and time-based (`day`): user activity metrics;
 * - geographic (`country`): user activity metrics;
 * - demographics (`ageGroup`, `gender` or both): `viewerPercentage` only;
 * - audience retention (`elapsedVideoTimeRatio`): the retention metrics, for exactly one video
 *   (`filters=video==ID`, required), optionally narrowed by `audienceType`.
 * Any other combination is a query YouTube does not support (400).
 */

const DAY = 86_400_000;

type DataType = 'INTEGER' | 'FLOAT' | 'STRING';

/** User activity metrics (https://developers.google.com/youtube/analytics/metrics), with their column types. */
const ACTIVITY: Record<string, DataType> = {
  views: 'INTEGER',
  estimatedMinutesWatched: 'FLOAT',
  averageViewDuration: 'INTEGER',
  averageViewPercentage: 'FLOAT',
  subscribersGained: 'INTEGER',
  subscribersLost: 'INTEGER',
  likes: 'INTEGER',
  dislikes: 'INTEGER',
  comments: 'INTEGER',
  shares: 'INTEGER',
};
const RETENTION: Record<string, DataType> = {
  audienceWatchRatio: 'FLOAT',
  relativeRetentionPerformance: 'FLOAT',
  startedWatching: 'INTEGER',
  stoppedWatching: 'INTEGER',
  totalSegmentImpressions: 'INTEGER',
};
const DEMOGRAPHIC: Record<string, DataType> = { viewerPercentage: 'FLOAT' };
/** Every metric name the API knows (an unknown one is refused before the report is looked at). */
export const ALL_METRICS: Record<string, DataType> = { ...ACTIVITY, ...RETENTION, ...DEMOGRAPHIC };
export const ALL_DIMENSIONS: Record<string, DataType> = {
  day: 'STRING',
  month: 'STRING',
  country: 'STRING',
  ageGroup: 'STRING',
  gender: 'STRING',
  elapsedVideoTimeRatio: 'FLOAT',
  video: 'STRING',
  audienceType: 'STRING',
  subscribedStatus: 'STRING',
  youtubeProduct: 'STRING',
};

interface Report {
  name: string;
  metrics: Record<string, DataType>;
  /** Filters the report accepts; `required` ones must be present. */
  filters: string[];
  required?: string[];
}

/**
 * The report a `dimensions` value asks for (sorted dimension names joined by a comma), or none. Of each
 * report's filters the simulator serves `video` (and accepts `audienceType`); YouTube's other filters
 * (country, continent, subscribedStatus...) are refused here as an unsupported query.
 */
export const REPORTS: Record<string, Report> = {
  '': { name: 'basic', metrics: ACTIVITY, filters: ['video'] },
  day: { name: 'time-based', metrics: ACTIVITY, filters: ['video'] },
  country: { name: 'geographic', metrics: ACTIVITY, filters: ['video'] },
  ageGroup: { name: 'demographics', metrics: DEMOGRAPHIC, filters: ['video'] },
  gender: { name: 'demographics', metrics: DEMOGRAPHIC, filters: ['video'] },
  'ageGroup,gender': { name: 'demographics', metrics: DEMOGRAPHIC, filters: ['video'] },
  // The audience type narrows YouTube's curve; the simulator's curve is the same for every type.
  elapsedVideoTimeRatio: {
    name: 'audience retention',
    metrics: RETENTION,
    filters: ['video', 'audienceType'],
    required: ['video'],
  },
};

const AGE_GROUPS = ['age13-17', 'age18-24', 'age25-34', 'age35-44', 'age45-54', 'age55-64', 'age65-'];
const GENDERS = ['female', 'male', 'user_specified'];
const COUNTRIES = ['US', 'IN', 'GB', 'DE', 'BR', 'FR', 'JP', 'CA'];

function hashed(...parts: (string | number)[]): number {
  return createHash('sha256').update(parts.join('|')).digest().readUInt32BE(0);
}

/** The average view duration of a video's views, in seconds (30-269). */
function viewSeconds(videoId: string): number {
  return 30 + (createHash('sha256').update(videoId).digest()[8]! % 240);
}

/** A video's length in seconds (300-899), longer than any of its average views; videos.list reports it. */
export function videoDurationSeconds(videoId: string): number {
  return 300 + (createHash('sha256').update(videoId).digest()[9]! % 600);
}

/** What one UTC day added to a video's user activity metrics. */
function videoDay(video: Pick<YtVideo, 'id' | 'createdAt'>, dayStart: number, now: number) {
  const m = dayMetrics(video.id, video.createdAt, dayStart, now);
  const seconds = viewSeconds(video.id);
  return {
    views: m.views,
    estimatedMinutesWatched: Math.round(((m.views * seconds) / 60) * 10) / 10,
    averageViewDuration: m.views ? seconds : 0,
    averageViewPercentage: m.views ? Math.round((seconds / videoDurationSeconds(video.id)) * 10_000) / 100 : 0,
    subscribersGained: Math.floor(m.views / 100),
    subscribersLost: Math.floor(m.views / 500),
    likes: m.likes,
    dislikes: 0,
    comments: m.comments,
    shares: m.shares,
  };
}
type ActivityValues = ReturnType<typeof videoDay>;

/**
 * Several videos' activity added up: counts summed, the average view duration and percentage weighted by
 * views (as YouTube computes them over a channel).
 */
export function addActivity(parts: ActivityValues[]): ActivityValues {
  const sum = (k: keyof ActivityValues) => parts.reduce((s, p) => s + p[k], 0);
  const views = sum('views');
  const weighted = (k: 'averageViewDuration' | 'averageViewPercentage') =>
    views ? parts.reduce((s, p) => s + p[k] * p.views, 0) / views : 0;
  return {
    views,
    estimatedMinutesWatched: Math.round(sum('estimatedMinutesWatched') * 10) / 10,
    averageViewDuration: Math.round(weighted('averageViewDuration')),
    averageViewPercentage: Math.round(weighted('averageViewPercentage') * 100) / 100,
    subscribersGained: sum('subscribersGained'),
    subscribersLost: sum('subscribersLost'),
    likes: sum('likes'),
    dislikes: sum('dislikes'),
    comments: sum('comments'),
    shares: sum('shares'),
  };
}

/**
 * The days from `start` to `end` (ms, UTC midnights) that have data for `videos`: from the first video's
 * upload day, up to `now`; each with the videos' activity added up.
 */
export function activityByDay(
  videos: Pick<YtVideo, 'id' | 'createdAt'>[],
  start: number,
  end: number,
  now: number,
): { day: string; values: ActivityValues }[] {
  if (!videos.length) return [];
  const first = Math.min(...videos.map((v) => Math.floor(v.createdAt / DAY) * DAY));
  const out: { day: string; values: ActivityValues }[] = [];
  for (let day = Math.max(start, first); day <= end && day <= now; day += DAY) {
    const live = videos.filter((v) => v.createdAt < day + DAY);
    out.push({
      day: new Date(day).toISOString().slice(0, 10),
      values: addActivity(live.map((v) => videoDay(v, day, now))),
    });
  }
  return out;
}

/** `total` split over `keys` by weights from `scope` (whole numbers summing to `total`; the remainder to the first). */
function split(total: number, scope: string, keys: string[], integer: boolean): number[] {
  const weights = keys.map((k) => 1 + (hashed(scope, k) % 100));
  const w = weights.reduce((s, x) => s + x, 0);
  if (!integer) return weights.map((x) => Math.round(((total * x) / w) * 10) / 10);
  const parts = weights.map((x) => Math.floor((total * x) / w));
  parts[0]! += total - parts.reduce((s, x) => s + x, 0);
  return parts;
}

/** The geographic report: the range's activity of `scope` (the channel id, or the filtered video ids) by country. */
export function activityByCountry(scope: string, total: ActivityValues): { country: string; values: ActivityValues }[] {
  if (!total.views) return [];
  const byKey = {} as Record<keyof ActivityValues, number[]>;
  for (const k of Object.keys(total) as (keyof ActivityValues)[]) {
    byKey[k] =
      k === 'averageViewDuration' || k === 'averageViewPercentage'
        ? COUNTRIES.map(() => total[k])
        : split(total[k], scope, COUNTRIES, ACTIVITY[k] === 'INTEGER');
  }
  return COUNTRIES.map((country, i) => ({
    country,
    values: Object.fromEntries(Object.entries(byKey).map(([k, v]) => [k, v[i]!])) as ActivityValues,
  })).filter((r) => r.values.views > 0);
}

/** A distribution of 100 percent over `keys` for `scope`, one decimal each. */
function percentages(scope: string, dimension: string, keys: string[]): Map<string, number> {
  const weights = keys.map((k) => 1 + (hashed(scope, dimension, k) % 100));
  const w = weights.reduce((s, x) => s + x, 0);
  return new Map(keys.map((k, i) => [k, (weights[i]! * 100) / w]));
}

/**
 * The demographics report of `scope`: `viewerPercentage` (signed-in viewers) for each age group, gender
 * or pair of both, rounded to one decimal as YouTube reports it.
 */
export function viewerPercentages(scope: string, dimensions: string[]): { keys: string[]; value: number }[] {
  const ages = percentages(scope, 'ageGroup', AGE_GROUPS);
  const genders = percentages(scope, 'gender', GENDERS);
  const round = (x: number) => Math.round(x * 10) / 10;
  if (dimensions.length === 2)
    return AGE_GROUPS.flatMap((a) =>
      GENDERS.map((g) => ({ keys: [a, g], value: round((ages.get(a)! * genders.get(g)!) / 100) })),
    );
  const one = dimensions[0] === 'gender' ? genders : ages;
  return [...one].map(([k, v]) => ({ keys: [k], value: round(v) }));
}

/**
 * The audience retention curve of a video with `views` views in the range: 100 points at
 * elapsedVideoTimeRatio 0.01 to 1.00. Viewers drop off along the video (with jitter from the id); a
 * segment's impressions are the views times its watch ratio.
 */
export function retentionCurve(
  videoId: string,
  views: number,
): {
  elapsedVideoTimeRatio: number;
  audienceWatchRatio: number;
  relativeRetentionPerformance: number;
  startedWatching: number;
  stoppedWatching: number;
  totalSegmentImpressions: number;
}[] {
  if (!views) return [];
  const jitter = (what: string, i: number) => (hashed(videoId, what, i) % 1000) / 1000;
  return Array.from({ length: 100 }, (_, n) => {
    const i = n + 1;
    const ratio = i / 100;
    const watch = Math.round((1.05 - 0.55 * ratio + 0.05 * jitter('watch', i)) * 10_000) / 10_000;
    return {
      elapsedVideoTimeRatio: ratio,
      audienceWatchRatio: watch,
      relativeRetentionPerformance: Math.round((0.3 + 0.4 * jitter('relative', i)) * 10_000) / 10_000,
      startedWatching: i === 1 ? views : Math.floor(views * 0.01 * jitter('started', i)),
      stoppedWatching: Math.floor(views * 0.01 * (0.5 + jitter('stopped', i))),
      totalSegmentImpressions: Math.round(views * watch),
    };
  });
}
