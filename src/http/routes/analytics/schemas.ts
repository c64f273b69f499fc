import { Type } from '@sinclair/typebox';
import { Account } from '../accounts/schemas.js';

const NullableString = Type.Unsafe<string | null>({ type: ['string', 'null'] });
const Int = Type.Number();

const Counters = {
  impressions: Int,
  reach: Int,
  likes: Int,
  comments: Int,
  shares: Int,
  saves: Int,
  clicks: Int,
  views: Int,
};

const PostAnalytics = Type.Object({ ...Counters, engagementRate: Type.Number(), lastUpdated: NullableString });

const PlatformAnalytics = Type.Object({
  platform: Type.String(),
  status: Type.String(),
  accountId: Type.String(),
  accountUsername: Type.String(),
  analytics: PostAnalytics,
  accountMetrics: Type.Union([
    Type.Object({
      followers: Type.Union([Int, Type.Null()]),
      subscribers: Type.Union([Int, Type.Null()]),
      lastUpdated: NullableString,
    }),
    Type.Null(),
  ]),
});

/** The filters most analytics routes share (hosted API 1.0.1). */
export const Filters = {
  platform: Type.Optional(Type.String({ maxLength: 32 })),
  profileId: Type.Optional(Type.String({ maxLength: 64 })),
  source: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('late'), Type.Literal('external')])),
};

const DateParam = Type.String({ maxLength: 40 });

export const AnalyticsQuery = Type.Object({
  postId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  ...Filters,
  fromDate: Type.Optional(DateParam),
  toDate: Type.Optional(DateParam),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 })),
  sortBy: Type.Optional(Type.Union([Type.Literal('date'), Type.Literal('engagement')])),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
});

/** GET /v1/analytics answers one post (with postId) or the list; both shapes in one object schema. */
export const AnalyticsResponse = Type.Object({
  postId: Type.Optional(Type.String()),
  latePostId: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
  content: Type.Optional(Type.String()),
  scheduledFor: Type.Optional(NullableString),
  publishedAt: Type.Optional(NullableString),
  analytics: Type.Optional(PostAnalytics),
  platformAnalytics: Type.Optional(Type.Array(PlatformAnalytics)),
  platform: Type.Optional(Type.String()),
  platformPostUrl: Type.Optional(NullableString),
  isExternal: Type.Optional(Type.Boolean()),
  overview: Type.Optional(
    Type.Object({ totalPosts: Int, publishedPosts: Int, scheduledPosts: Int, lastSync: NullableString }),
  ),
  posts: Type.Optional(
    Type.Array(
      Type.Object({
        _id: Type.String(),
        latePostId: Type.String(),
        content: Type.String(),
        scheduledFor: NullableString,
        publishedAt: NullableString,
        status: Type.String(),
        analytics: PostAnalytics,
        platforms: Type.Array(PlatformAnalytics),
        platform: Type.String(),
        platformPostUrl: NullableString,
        isExternal: Type.Boolean(),
        thumbnailUrl: NullableString,
        mediaType: NullableString,
        mediaItems: Type.Array(Type.Record(Type.String(), Type.Unknown())),
      }),
    ),
  ),
  pagination: Type.Optional(Type.Object({ page: Int, limit: Int, total: Int, pages: Int })),
  accounts: Type.Optional(Type.Array(Account)),
  hasAnalyticsAccess: Type.Optional(Type.Boolean()),
});

export const DailyMetricsResponse = Type.Object({
  dailyData: Type.Array(
    Type.Object({
      date: Type.String(),
      postCount: Int,
      platforms: Type.Record(Type.String(), Int),
      metrics: Type.Object(Counters),
    }),
  ),
  platformBreakdown: Type.Array(Type.Object({ platform: Type.String(), postCount: Int, ...Counters })),
});

export const BestTimeResponse = Type.Object({
  timezone: Type.String(),
  slots: Type.Array(Type.Object({ day_of_week: Int, hour: Int, avg_engagement: Type.Number(), post_count: Int })),
});

export const ContentDecayResponse = Type.Object({
  buckets: Type.Array(
    Type.Object({ bucket_order: Int, bucket_label: Type.String(), avg_pct_of_final: Type.Number(), post_count: Int }),
  ),
});

export const PostingFrequencyResponse = Type.Object({
  frequency: Type.Array(
    Type.Object({
      platform: Type.String(),
      posts_per_week: Int,
      avg_engagement_rate: Type.Number(),
      avg_engagement: Type.Number(),
      weeks_count: Int,
    }),
  ),
});

export const PostTimelineResponse = Type.Object({
  postId: Type.String(),
  timeline: Type.Array(
    Type.Object({ date: Type.String(), platform: Type.String(), platformPostId: NullableString, ...Counters }),
  ),
});

export const FollowerStatsResponse = Type.Object({
  accounts: Type.Array(
    Type.Object({
      ...Account.properties,
      currentFollowers: Type.Union([Int, Type.Null()]),
      lastUpdated: NullableString,
      growth: Int,
      growthPercentage: Type.Number(),
      dataPoints: Int,
    }),
  ),
  stats: Type.Record(Type.String(), Type.Array(Type.Object({ date: Type.String(), followers: Int }))),
  dateRange: Type.Object({ from: Type.String(), to: Type.String() }),
  granularity: Type.String(),
});
