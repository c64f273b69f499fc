import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../../context.js';
import { getInboxSourceBreakdown } from '../../../../domain/analytics/inbox.js';
import type { App } from '../../../app.js';
import { errorResponses } from '../../../schemas/common.js';
import { InboxFilters, SourceBreakdownResponse } from './schemas.js';

export default function getInboxSourceBreakdownRoute(app: App, ctx: AppContext) {
  app.get(
    '/analytics/inbox/source-breakdown',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'Inbox messages by lineage source and platform',
        querystring: Type.Object({ ...InboxFilters }),
        response: { 200: SourceBreakdownResponse, ...errorResponses(400, 401, 402) },
      },
    },
    async (request) => getInboxSourceBreakdown(ctx, request.principal, request.query),
  );
}
