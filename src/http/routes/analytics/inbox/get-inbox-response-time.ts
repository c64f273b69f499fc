import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../../context.js';
import { getInboxResponseTime } from '../../../../domain/analytics/inbox.js';
import type { App } from '../../../app.js';
import { errorResponses } from '../../../schemas/common.js';
import { InboxFilters, ResponseTimeResponse } from './schemas.js';

export default function getInboxResponseTimeRoute(app: App, ctx: AppContext) {
  app.get(
    '/analytics/inbox/response-time',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'Inbox time-to-first-response statistics',
        querystring: Type.Object({ ...InboxFilters }),
        response: { 200: ResponseTimeResponse, ...errorResponses(400, 401, 402) },
      },
    },
    async (request) => getInboxResponseTime(ctx, request.principal, request.query),
  );
}
