import { Type } from '@sinclair/typebox';
import { invalid } from '../../errors.js';
import { platformTool } from '../tools.js';
import { ScopeMissing, ScopeStatus, withAnalyticsScope } from './analytics-scope.js';
import type { YouTubeAdapter } from './index.js';
import { demographics, videoRetention } from './audience-tools.js';
import { channelInsights } from './channel-insights.js';
import { day } from './report-dates.js';
import { CAPTION_TOOLS } from './caption-tools.js';
import { PLAYLIST_TOOLS } from './playlist-tools.js';

const DAY_MS = 86_400_000;
/** The Analytics API reports with a delay of two to three days; the default window ends three days back. */
const DEFAULT_END_DAYS = 3;
const DEFAULT_START_DAYS = 30;
const MAX_DAYS = 90;
/**
 * GET /v1/analytics/youtube/daily-views: a video's views, watch time and subscriber changes by day from
 * the YouTube Analytics API. Needs the analytics add-on and the yt-analytics.readonly scope (412 with a
 * reconnect URL without it, as the hosted API answers). Defaults: the 30 days up to 3 days ago; at most 90.
 */
const dailyViews = platformTool<YouTubeAdapter>()({
  method: 'GET',
  path: '/analytics/youtube/daily-views',
  account: 'query',
  addon: 'analytics',
  tags: ['Analytics'],
  summary: 'Get YouTube daily views',
  querystring: Type.Object({
    videoId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
    startDate: Type.Optional(Type.String({ maxLength: 32 })),
    endDate: Type.Optional(Type.String({ maxLength: 32 })),
  }),
  response: Type.Object({
    success: Type.Boolean(),
    videoId: Type.String(),
    dateRange: Type.Object({ startDate: Type.String(), endDate: Type.String() }),
    totalViews: Type.Integer(),
    dailyViews: Type.Array(
      Type.Object({
        date: Type.String(),
        views: Type.Integer(),
        estimatedMinutesWatched: Type.Number(),
        averageViewDuration: Type.Number(),
        subscribersGained: Type.Integer(),
        subscribersLost: Type.Integer(),
        likes: Type.Integer(),
        comments: Type.Integer(),
        shares: Type.Integer(),
      }),
    ),
    lastSyncedAt: Type.String({ format: 'date-time' }),
    scopeStatus: ScopeStatus,
  }),
  errors: { 412: ScopeMissing },
  async handler({ adapter, account, query, io, reconnectUrl }) {
    const now = io.now();
    const startDate = day(query.startDate, 'startDate', new Date(now.getTime() - DEFAULT_START_DAYS * DAY_MS));
    const endDate = day(query.endDate, 'endDate', new Date(now.getTime() - DEFAULT_END_DAYS * DAY_MS));
    if (startDate > endDate)
      throw invalid('invalid_date_range', 'startDate must not be after endDate', {
        fields: { startDate: ['must not be after endDate'] },
      });
    if (Date.parse(endDate) - Date.parse(startDate) >= MAX_DAYS * DAY_MS) {
      throw invalid('invalid_date_range', `The date range is at most ${MAX_DAYS} days`, {
        fields: { startDate: [`must be within ${MAX_DAYS} days of endDate`] },
      });
    }
    const days = await withAnalyticsScope(account!, reconnectUrl, 'daily video analytics', () =>
      adapter.dailyViews(account!, { videoId: query.videoId, startDate, endDate }, io),
    );
    // Newest day first, as the hosted API lists them.
    const dailyViews = [...days].sort((a, b) => (a.date < b.date ? 1 : -1));
    return {
      body: {
        success: true,
        videoId: query.videoId,
        dateRange: { startDate, endDate },
        totalViews: dailyViews.reduce((sum, d) => sum + d.views, 0),
        dailyViews,
        lastSyncedAt: now.toISOString(),
        scopeStatus: { hasAnalyticsScope: true },
      },
    };
  },
});

/** YouTube's own routes (platforms/tools.ts). */
export const YOUTUBE_TOOLS = [
  dailyViews,
  channelInsights,
  videoRetention,
  demographics,
  ...PLAYLIST_TOOLS,
  ...CAPTION_TOOLS,
];
