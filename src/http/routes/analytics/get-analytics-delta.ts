import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { getAnalyticsDelta } from '../../../domain/analytics/delta.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';

const Num = Type.Number();
const Shares = Type.Record(Type.String(), Num);
const DeltaEntry = Type.Object({
  postId: Type.String(),
  accountId: Type.String(),
  profileId: Type.String(),
  platform: Type.String(),
  platformPostId: Type.String(),
  publishedAt: Type.String(),
  syncedAt: Type.String(),
  isDeleted: Type.Boolean(),
  metrics: Type.Object({
    ...Object.fromEntries(
      [
        'impressions',
        'reach',
        'likes',
        'comments',
        'shares',
        'saves',
        'sends',
        'clicks',
        'views',
        'follows',
        'igReelsAvgWatchTime',
        'igReelsVideoViewTotalTime',
        'reposts',
        'reelsSkipRate',
        'completionRate',
        'profileViews',
        'websiteClicks',
      ].map((k) => [k, Num]),
    ),
    impressionSources: Shares,
    audienceTypes: Shares,
    audienceCountries: Shares,
  }),
});

export default function getAnalyticsDeltaRoute(app: App, ctx: AppContext) {
  app.get(
    '/analytics/delta',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'Analytics changed since a cursor',
        querystring: Type.Object({
          cursor: Type.Optional(Type.String({ maxLength: 200 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
          platform: Type.Optional(Type.String({ maxLength: 40 })),
          profileId: Type.Optional(Type.String({ maxLength: 64 })),
        }),
        response: {
          200: Type.Object({ data: Type.Array(DeltaEntry), nextCursor: Type.String(), hasMore: Type.Boolean() }),
          ...errorResponses(400, 401, 402),
        },
      },
    },
    async (request) => getAnalyticsDelta(ctx, request.principal, request.query),
  );
}
