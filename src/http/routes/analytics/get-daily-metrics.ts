import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { getDailyMetrics } from '../../../domain/analytics/aggregates.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { DailyMetricsResponse, Filters } from './schemas.js';

export default function getDailyMetricsRoute(app: App, ctx: AppContext) {
  app.get(
    '/analytics/daily-metrics',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'Daily aggregated metrics and a per-platform breakdown',
        querystring: Type.Object({
          ...Filters,
          fromDate: Type.Optional(Type.String({ maxLength: 40 })),
          toDate: Type.Optional(Type.String({ maxLength: 40 })),
        }),
        response: { 200: DailyMetricsResponse, ...errorResponses(400, 401, 402) },
      },
    },
    async (request) => getDailyMetrics(ctx, request.principal, request.query),
  );
}
