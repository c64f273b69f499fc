import { Type } from '@sinclair/typebox';
import { AppError, invalid } from '../../errors.js';
import { platformTool } from '../tools.js';
import { PlatformError } from '../types.js';
import type { YouTubeAdapter } from './index.js';
import { YOUTUBE_ANALYTICS_SCOPE } from './oauth.js';
import { CAPTION_TOOLS } from './caption-tools.js';
import { PLAYLIST_TOOLS } from './playlist-tools.js';

const DAY_MS = 86_400_000;
/** The Analytics API reports with a delay of two to three days; the default window ends three days back. */
const DEFAULT_END_DAYS = 3;
const DEFAULT_START_DAYS = 30;
const MAX_DAYS = 90;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function day(value: string | undefined, field: string, fallback: Date): string {
  if (value === undefined || value === '') return fallback.toISOString().slice(0, 10);
  const parsed = new Date(`${value}T00:00:00Z`);
  if (!DATE.test(value) || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== value) {
    throw invalid('invalid_date', `Invalid ${field} format. Use YYYY-MM-DD.`, {
      fields: { [field]: ['must be a date (YYYY-MM-DD)'] },
    });
  }
  return value;
}

const ScopeStatus = Type.Object({
  hasAnalyticsScope: Type.Boolean(),
  requiresReauthorization: Type.Optional(Type.Boolean()),
  reauthorizeUrl: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

/** The hosted API's 412 when the account never granted yt-analytics.readonly. */
async function scopeMissing(reconnectUrl: (extra: readonly string[]) => Promise<string | null>): Promise<AppError> {
  const scopeStatus = {
    hasAnalyticsScope: false,
    requiresReauthorization: true,
    reauthorizeUrl: await reconnectUrl([YOUTUBE_ANALYTICS_SCOPE]),
  };
  return new AppError(
    'precondition_failed',
    'youtube_analytics_scope_missing',
    'To access daily video analytics, please reconnect your YouTube account to grant the required permissions.',
    { scopeStatus },
    { body: { success: false, scopeStatus } },
  );
}

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
  errors: {
    412: Type.Object({
      success: Type.Literal(false),
      error: Type.String(),
      code: Type.String(),
      scopeStatus: ScopeStatus,
      details: Type.Optional(Type.Object({}, { additionalProperties: true })),
    }),
  },
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
    if (!account!.scopes?.includes(YOUTUBE_ANALYTICS_SCOPE)) throw await scopeMissing(reconnectUrl);
    let days;
    try {
      days = await adapter.dailyViews(account!, { videoId: query.videoId, startDate, endDate }, io);
    } catch (error) {
      // The grant lost the scope since it was stored (revoked on the Google account page).
      if (error instanceof PlatformError && error.platformCode === 'insufficientPermissions')
        throw await scopeMissing(reconnectUrl);
      throw error;
    }
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
export const YOUTUBE_TOOLS = [dailyViews, ...PLAYLIST_TOOLS, ...CAPTION_TOOLS];
