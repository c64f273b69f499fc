import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { getContentDecay } from '../../../domain/analytics/aggregates.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { ContentDecayResponse, Filters } from './schemas.js';

export default function getContentDecayRoute(app: App, ctx: AppContext) {
  app.get(
    '/analytics/content-decay',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'How engagement accrues over the time after publishing',
        querystring: Type.Object(Filters),
        response: { 200: ContentDecayResponse, ...errorResponses(400, 401, 402) },
      },
    },
    async (request) => getContentDecay(ctx, request.principal, request.query),
  );
}
