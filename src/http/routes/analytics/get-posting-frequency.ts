import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { getPostingFrequency } from '../../../domain/analytics/aggregates.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { Filters, PostingFrequencyResponse } from './schemas.js';

export default function getPostingFrequencyRoute(app: App, ctx: AppContext) {
  app.get(
    '/analytics/posting-frequency',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'Posts per week against engagement, per platform',
        querystring: Type.Object(Filters),
        response: { 200: PostingFrequencyResponse, ...errorResponses(400, 401, 402) },
      },
    },
    async (request) => getPostingFrequency(ctx, request.principal, request.query),
  );
}
