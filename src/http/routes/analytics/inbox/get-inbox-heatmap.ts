import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../../context.js';
import { getInboxHeatmap } from '../../../../domain/analytics/inbox.js';
import type { App } from '../../../app.js';
import { errorResponses } from '../../../schemas/common.js';
import { HeatmapResponse, InboxFilters, SourceFilter } from './schemas.js';

export default function getInboxHeatmapRoute(app: App, ctx: AppContext) {
  app.get(
    '/analytics/inbox/heatmap',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'Inbox messages per weekday and UTC hour',
        querystring: Type.Object({
          ...InboxFilters,
          ...SourceFilter,
          action: Type.Optional(
            Type.Union([
              Type.Literal('message.received'),
              Type.Literal('message.sent'),
              Type.Literal('message.read'),
              Type.Literal('all'),
            ]),
          ),
        }),
        response: { 200: HeatmapResponse, ...errorResponses(400, 401, 402) },
      },
    },
    async (request) => getInboxHeatmap(ctx, request.principal, request.query),
  );
}
