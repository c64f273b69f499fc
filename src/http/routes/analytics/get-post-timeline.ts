import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { getPostTimeline } from '../../../domain/analytics/timeline.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { PostTimelineResponse } from './schemas.js';

export default function getPostTimelineRoute(app: App, ctx: AppContext) {
  app.get(
    '/analytics/post-timeline',
    {
      schema: {
        tags: ['Analytics'],
        summary: "A post's metrics day by day since publishing",
        querystring: Type.Object({
          postId: Type.String({ minLength: 1, maxLength: 64 }),
          fromDate: Type.Optional(Type.String({ maxLength: 40 })),
          toDate: Type.Optional(Type.String({ maxLength: 40 })),
        }),
        response: { 200: PostTimelineResponse, ...errorResponses(400, 401, 402, 404) },
      },
    },
    async (request) => getPostTimeline(ctx, request.principal, request.query),
  );
}
