import type { AppContext } from '../../../context.js';
import { getAnalytics } from '../../../domain/analytics/posts.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AnalyticsQuery, AnalyticsResponse } from './schemas.js';

export default function getAnalyticsRoute(app: App, ctx: AppContext) {
  app.get(
    '/analytics',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'Post analytics: one post (postId) or a page of published posts with an overview',
        querystring: AnalyticsQuery,
        response: { 200: AnalyticsResponse, ...errorResponses(400, 401, 402, 404) },
      },
    },
    async (request) => getAnalytics(ctx, request.principal, request.query),
  );
}
