import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { getBestTime } from '../../../domain/analytics/aggregates.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { BestTimeResponse, Filters } from './schemas.js';

export default function getBestTimeRoute(app: App, ctx: AppContext) {
  app.get(
    '/analytics/best-time',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'Weekday and hour slots ranked by the average engagement of your posts published in them',
        querystring: Type.Object({
          ...Filters,
          timezone: Type.Optional(
            Type.String({ maxLength: 64, description: 'IANA time zone of the slots (default UTC)' }),
          ),
        }),
        response: { 200: BestTimeResponse, ...errorResponses(400, 401, 402) },
      },
    },
    async (request) => getBestTime(ctx, request.principal, request.query),
  );
}
