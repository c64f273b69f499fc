import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { getFollowerStats } from '../../../domain/analytics/followers.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { FollowerStatsResponse } from './schemas.js';

export default function getFollowerStatsRoute(app: App, ctx: AppContext) {
  app.get(
    '/accounts/follower-stats',
    {
      schema: {
        tags: ['Accounts', 'Analytics'],
        summary: 'Follower history and growth of connected accounts',
        querystring: Type.Object({
          accountIds: Type.Optional(Type.String({ maxLength: 2000 })),
          profileId: Type.Optional(Type.String({ maxLength: 64 })),
          fromDate: Type.Optional(Type.String({ maxLength: 40 })),
          toDate: Type.Optional(Type.String({ maxLength: 40 })),
          granularity: Type.Optional(
            Type.Union([Type.Literal('daily'), Type.Literal('weekly'), Type.Literal('monthly')]),
          ),
        }),
        response: { 200: FollowerStatsResponse, ...errorResponses(400, 401, 402) },
      },
    },
    async (request) => getFollowerStats(ctx, request.principal, request.query),
  );
}
