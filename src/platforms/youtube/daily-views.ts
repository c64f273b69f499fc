import type { AccountCredentials, PlatformIO } from '../types.js';
import { token, ytRequest, type YouTubeOptions } from './api.js';

/** One day of a video's numbers, as the hosted API's `dailyViews` items name them. */
export interface DailyViews {
  date: string;
  views: number;
  estimatedMinutesWatched: number;
  averageViewDuration: number;
  subscribersGained: number;
  subscribersLost: number;
  likes: number;
  comments: number;
  shares: number;
}

const METRICS = [
  'views',
  'estimatedMinutesWatched',
  'averageViewDuration',
  'subscribersGained',
  'subscribersLost',
  'likes',
  'comments',
  'shares',
] as const;

/**
 * A video's numbers by day through the YouTube Analytics API: `reports.query` with `ids=channel==MINE`,
 * `dimensions=day`, `filters=video==ID`. The answer is a table (`columnHeaders` + `rows`), read by column
 * name; a day without data has no row. https://developers.google.com/youtube/analytics/reference/reports/query
 */
export async function queryDailyViews(
  opts: YouTubeOptions,
  account: AccountCredentials,
  q: { videoId: string; startDate: string; endDate: string },
  io: PlatformIO,
): Promise<DailyViews[]> {
  const params = new URLSearchParams({
    ids: 'channel==MINE',
    startDate: q.startDate,
    endDate: q.endDate,
    metrics: METRICS.join(','),
    dimensions: 'day',
    filters: `video==${q.videoId}`,
    sort: 'day',
  });
  const res = await ytRequest(io, {
    method: 'GET',
    url: `${opts.analyticsUrl}/v2/reports?${params}`,
    token: token(account),
  });
  const headers: string[] = (res.body?.columnHeaders ?? []).map((h: { name: string }) => h.name);
  const rows: unknown[][] = Array.isArray(res.body?.rows) ? res.body.rows : [];
  return rows.map((row) => {
    const at = (name: string) => row[headers.indexOf(name)];
    const num = (name: string) => Number(at(name) ?? 0) || 0;
    return {
      date: String(at('day')),
      views: num('views'),
      estimatedMinutesWatched: num('estimatedMinutesWatched'),
      averageViewDuration: num('averageViewDuration'),
      subscribersGained: num('subscribersGained'),
      subscribersLost: num('subscribersLost'),
      likes: num('likes'),
      comments: num('comments'),
      shares: num('shares'),
    };
  });
}
