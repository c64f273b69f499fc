import { Type } from '@sinclair/typebox';
import { AppError, invalid } from '../../errors.js';
import type { AccountCredentials, PlatformIO } from '../types.js';
import { platformTool } from '../tools.js';
import { ScopeMissing, withAnalyticsScope } from './analytics-scope.js';
import type { YouTubeAdapter } from './index.js';
import { addDays, day, finalizedDay, provisionalSince } from './report-dates.js';
import type { VideoSummary } from './reports.js';

/*
 * GET /v1/analytics/youtube/video-retention and /demographics: a video's audience retention curve and
 * the audience of the channel (or of one video) by age, gender and country, from the YouTube Analytics
 * API's channel reports (https://developers.google.com/youtube/analytics/channel_reports):
 * - retention: `dimensions=elapsedVideoTimeRatio`, `filters=video==ID` (one video), up to 100 points;
 * - demographics: `dimensions=ageGroup` and `dimensions=gender` with `metrics=viewerPercentage` (percent
 *   of signed-in viewers), `dimensions=country` with `metrics=views`.
 * Both need yt-analytics.readonly (the daily-views 412 otherwise); a video must be the channel's own
 * (404 `video_not_found`). The range ends by default at the newest finalized day (3 days ago); a range
 * reaching past it says from which day its numbers are provisional.
 */

const VIDEO_ID = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
const Dates = {
  fromDate: Type.Optional(Type.String({ maxLength: 32 })),
  toDate: Type.Optional(Type.String({ maxLength: 32 })),
  startDate: Type.Optional(Type.String({ maxLength: 32 })),
  endDate: Type.Optional(Type.String({ maxLength: 32 })),
};
const DateRange = Type.Object({ startDate: Type.String(), endDate: Type.String() });

/** The channel's own video, or 404 (another channel's video has no analytics for this channel). */
async function ownVideo(
  adapter: YouTubeAdapter,
  account: AccountCredentials,
  videoId: string,
  io: PlatformIO,
): Promise<VideoSummary> {
  const video = await adapter.videoSummary(account, videoId, io);
  if (!video || video.channelId !== account.platformUserId)
    throw new AppError('not_found', 'video_not_found', "The video is not one of the connected channel's videos", {
      videoId,
    });
  return video;
}

/**
 * The range: `fromDate` (or `startDate`), default `defaultStart`; `toDate` (or `endDate`), default the
 * newest finalized day, at most today. Null when only the defaults cross (a video published in the
 * last days): there is nothing to read yet.
 */
function range(
  q: { fromDate?: string; toDate?: string; startDate?: string; endDate?: string },
  now: Date,
  defaultStart: string,
): { startDate: string; endDate: string; empty: boolean } {
  const today = now.toISOString().slice(0, 10);
  const startField = q.fromDate ? 'fromDate' : 'startDate';
  const endField = q.toDate ? 'toDate' : 'endDate';
  const start = day(q.fromDate ?? q.startDate, startField, new Date(`${defaultStart}T00:00:00Z`));
  const asked = day(q.toDate ?? q.endDate, endField, new Date(`${finalizedDay(now)}T00:00:00Z`));
  const endDate = asked > today ? today : asked;
  if (start > endDate) {
    if (q.fromDate ?? q.startDate ?? q.toDate ?? q.endDate)
      throw invalid('invalid_date_range', `${startField} must not be after ${endField}`, {
        fields: { [startField]: [`must not be after ${endField}`] },
      });
    return { startDate: start, endDate: start, empty: true };
  }
  return { startDate: start, endDate, empty: false };
}

const RETENTION = [
  'audienceWatchRatio',
  'relativeRetentionPerformance',
  'startedWatching',
  'stoppedWatching',
  'totalSegmentImpressions',
] as const;

export const videoRetention = platformTool<YouTubeAdapter>()({
  method: 'GET',
  path: '/analytics/youtube/video-retention',
  account: 'query',
  addon: 'analytics',
  tags: ['Analytics'],
  summary: 'Get YouTube video retention curve',
  querystring: Type.Object({ videoId: VIDEO_ID, ...Dates }),
  response: Type.Object({
    success: Type.Boolean(),
    accountId: Type.String(),
    videoId: Type.String(),
    title: Type.Union([Type.String(), Type.Null()]),
    publishedAt: Type.Union([Type.String(), Type.Null()]),
    durationSeconds: Type.Union([Type.Number(), Type.Null()]),
    dateRange: DateRange,
    provisionalSince: Type.Optional(Type.String()),
    retentionCurve: Type.Array(
      Type.Object({
        elapsedVideoTimeRatio: Type.Number(),
        ...Object.fromEntries(RETENTION.map((m) => [m, Type.Number()])),
      }),
    ),
    note: Type.Optional(Type.String()),
    scopeStatus: Type.Object({ hasAnalyticsScope: Type.Boolean() }),
  }),
  errors: { 412: ScopeMissing },
  async handler({ adapter, account, query, io, reconnectUrl }) {
    const now = io.now();
    // Dates are checked before YouTube is asked anything; the default start needs the video.
    range(query, now, '1970-01-01');
    const { video, dates, rows } = await withAnalyticsScope(account!, reconnectUrl, 'video retention', async () => {
      const video = await ownVideo(adapter, account!, query.videoId, io);
      const dates = range(query, now, (video.publishedAt ?? now.toISOString()).slice(0, 10));
      const rows = dates.empty
        ? []
        : await adapter.report(
            account!,
            {
              startDate: dates.startDate,
              endDate: dates.endDate,
              metrics: RETENTION,
              dimensions: ['elapsedVideoTimeRatio'],
              filters: `video==${video.id}`,
              sort: 'elapsedVideoTimeRatio',
            },
            io,
          );
      return { video, dates, rows };
    });
    const provisional = dates.empty ? undefined : provisionalSince(dates.startDate, dates.endDate, now);
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        videoId: video.id,
        title: video.title,
        publishedAt: video.publishedAt,
        durationSeconds: video.durationSeconds,
        dateRange: { startDate: dates.startDate, endDate: dates.endDate },
        ...(provisional ? { provisionalSince: provisional } : {}),
        retentionCurve: rows.map((r) => ({
          elapsedVideoTimeRatio: Number(r.elapsedVideoTimeRatio),
          ...Object.fromEntries(RETENTION.map((m) => [m, Number(r[m] ?? 0)])),
        })),
        ...(rows.length
          ? {}
          : {
              note: 'YouTube has no retention data for this video in this range: it needs enough views, and YouTube processes analytics with a 2-3 day delay.',
            }),
        scopeStatus: { hasAnalyticsScope: true },
      },
    };
  },
});

const BREAKDOWNS = ['age', 'gender', 'country'] as const;
/** `age25-34` -> `25-34`, `age65-` -> `65+`, as the hosted API names the age groups. */
const ageLabel = (group: string) => group.replace(/^age/, '').replace(/-$/, '+');

export const demographics = platformTool<YouTubeAdapter>()({
  method: 'GET',
  path: '/analytics/youtube/demographics',
  account: 'query',
  addon: 'analytics',
  tags: ['Analytics'],
  summary: 'Get YouTube demographics',
  querystring: Type.Object({
    videoId: Type.Optional(VIDEO_ID),
    breakdown: Type.Optional(Type.String({ maxLength: 100 })),
    ...Dates,
  }),
  response: Type.Object({
    success: Type.Boolean(),
    accountId: Type.String(),
    platform: Type.String(),
    videoId: Type.Optional(Type.String()),
    title: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    publishedAt: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    demographics: Type.Record(
      Type.String(),
      Type.Array(Type.Object({ dimension: Type.String(), value: Type.Number() })),
    ),
    dateRange: DateRange,
    provisionalSince: Type.Optional(Type.String()),
    note: Type.String(),
  }),
  errors: { 412: ScopeMissing },
  async handler({ adapter, account, query, io, reconnectUrl }) {
    const asked = query.breakdown
      ? [
          ...new Set(
            query.breakdown
              .split(',')
              .map((b) => b.trim())
              .filter(Boolean),
          ),
        ]
      : [...BREAKDOWNS];
    const unknown = asked.filter((b) => !(BREAKDOWNS as readonly string[]).includes(b));
    if (unknown.length || !asked.length)
      throw invalid(
        'invalid_breakdown',
        `Invalid breakdown: ${unknown.join(', ') || '(none)'}. Valid options: ${BREAKDOWNS.join(', ')}`,
        {
          fields: { breakdown: [`a list of ${BREAKDOWNS.join(', ')}`] },
        },
      );
    const now = io.now();
    const defaultStart = addDays(now.toISOString().slice(0, 10), -90);
    range(query, now, defaultStart);
    const { video, dates, out } = await withAnalyticsScope(account!, reconnectUrl, 'YouTube demographics', async () => {
      const video = query.videoId ? await ownVideo(adapter, account!, query.videoId, io) : null;
      const dates = range(query, now, video ? (video.publishedAt ?? now.toISOString()).slice(0, 10) : defaultStart);
      const filters = video ? `video==${video.id}` : undefined;
      const out: Record<string, { dimension: string; value: number }[]> = {};
      for (const b of asked) {
        if (dates.empty) {
          out[b] = [];
          continue;
        }
        const country = b === 'country';
        const rows = await adapter.report(
          account!,
          {
            startDate: dates.startDate,
            endDate: dates.endDate,
            metrics: [country ? 'views' : 'viewerPercentage'],
            dimensions: [country ? 'country' : b === 'age' ? 'ageGroup' : 'gender'],
            filters,
            ...(country ? { sort: '-views' } : {}),
          },
          io,
        );
        out[b] = rows.map((r) =>
          country
            ? { dimension: String(r.country), value: Number(r.views) }
            : b === 'age'
              ? { dimension: ageLabel(String(r.ageGroup)), value: Number(r.viewerPercentage) }
              : { dimension: String(r.gender), value: Number(r.viewerPercentage) },
        );
      }
      return { video, dates, out };
    });
    const provisional = dates.empty ? undefined : provisionalSince(dates.startDate, dates.endDate, now);
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        platform: 'youtube',
        ...(video ? { videoId: video.id, title: video.title, publishedAt: video.publishedAt } : {}),
        demographics: out,
        dateRange: { startDate: dates.startDate, endDate: dates.endDate },
        ...(provisional ? { provisionalSince: provisional } : {}),
        note: 'Age and gender are percentages of signed-in viewers (0-100); country values are views. YouTube reports with a 2-3 day delay and leaves out demographics when too few signed-in viewers watched.',
      },
    };
  },
});
