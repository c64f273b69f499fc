import type { AccountCredentials, PlatformIO } from '../types.js';
import { token, ytRequest, type YouTubeOptions } from './api.js';

/*
 * The channel reports the YouTube insights routes read (insights-tools.ts), all through the YouTube
 * Analytics API `reports.query` with `ids=channel==MINE`, and the video details beside them.
 * https://developers.google.com/youtube/analytics/reference/reports/query
 * https://developers.google.com/youtube/analytics/channel_reports
 */

/** One report row, by column name (dimensions as YouTube names them, metrics as numbers). */
export type ReportRow = Record<string, string | number>;

/** A report query besides `ids`: the dates (YYYY-MM-DD) and the report's dimensions, metrics, filters and sort. */
export interface ReportQuery {
  startDate: string;
  endDate: string;
  metrics: readonly string[];
  dimensions?: readonly string[];
  filters?: string;
  sort?: string;
}

/**
 * One `reports.query` of the caller's channel. The answer is a table (`columnHeaders` + `rows`), read by
 * column name; a report without data has no `rows`. A refused query is Google's error (400 `badRequest`
 * for an unsupported one, 403 `insufficientPermissions` without yt-analytics.readonly).
 */
export async function queryReport(
  opts: YouTubeOptions,
  account: AccountCredentials,
  q: ReportQuery,
  io: PlatformIO,
): Promise<ReportRow[]> {
  const params = new URLSearchParams({
    ids: 'channel==MINE',
    startDate: q.startDate,
    endDate: q.endDate,
    metrics: q.metrics.join(','),
  });
  if (q.dimensions?.length) params.set('dimensions', q.dimensions.join(','));
  if (q.filters) params.set('filters', q.filters);
  if (q.sort) params.set('sort', q.sort);
  const res = await ytRequest(io, {
    method: 'GET',
    url: `${opts.analyticsUrl}/v2/reports?${params}`,
    token: token(account),
  });
  const headers: { name?: unknown; columnType?: unknown }[] = Array.isArray(res.body?.columnHeaders)
    ? res.body.columnHeaders
    : [];
  const rows: unknown[][] = Array.isArray(res.body?.rows) ? res.body.rows : [];
  return rows.map((row) => {
    const out: ReportRow = {};
    headers.forEach((h, i) => {
      const name = String(h.name ?? i);
      const value = row[i];
      out[name] = h.columnType === 'METRIC' ? Number(value ?? 0) || 0 : String(value ?? '');
    });
    return out;
  });
}

/** What the insights routes show of a video. */
export interface VideoSummary {
  id: string;
  channelId: string;
  title: string | null;
  publishedAt: string | null;
  durationSeconds: number | null;
}

/** ISO 8601 duration of contentDetails.duration (`PT1H2M3S`, `P1DT2S`) in seconds, or null. */
function durationSeconds(iso: unknown): number | null {
  const m = typeof iso === 'string' ? /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(iso) : null;
  if (!m) return null;
  const [d, h, min, s] = m.slice(1).map((x) => Number(x ?? 0));
  return ((d! * 24 + h!) * 60 + min!) * 60 + s!;
}

/**
 * `videos.list part=snippet,contentDetails id=ID`: the video's channel, title, publishing time and length;
 * null when YouTube lists no such video (deleted, or never there).
 * https://developers.google.com/youtube/v3/docs/videos/list
 */
export async function readVideoSummary(
  opts: YouTubeOptions,
  account: AccountCredentials,
  videoId: string,
  io: PlatformIO,
): Promise<VideoSummary | null> {
  const q = new URLSearchParams({ part: 'snippet,contentDetails', id: videoId });
  const res = await ytRequest(io, {
    method: 'GET',
    url: `${opts.apiUrl}/youtube/v3/videos?${q}`,
    token: token(account),
  });
  const item = Array.isArray(res.body?.items) ? res.body.items.find((i: { id?: unknown }) => i.id === videoId) : null;
  if (!item) return null;
  return {
    id: videoId,
    channelId: String(item.snippet?.channelId ?? ''),
    title: typeof item.snippet?.title === 'string' ? item.snippet.title : null,
    publishedAt: typeof item.snippet?.publishedAt === 'string' ? item.snippet.publishedAt : null,
    durationSeconds: durationSeconds(item.contentDetails?.duration),
  };
}
