import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../../context.js';
import { listInboxConversationAnalytics } from '../../../../domain/analytics/inbox-conversations.js';
import type { App } from '../../../app.js';
import { errorResponses } from '../../../schemas/common.js';
import { ConversationListResponse, InboxFilters, SourceFilter } from './schemas.js';

const SORTS = ['lastMessageAt', 'firstMessageAt', 'totalMessages', 'received', 'sent', 'read', 'failed'] as const;

export default function listInboxConversationAnalyticsRoute(app: App, ctx: AppContext) {
  app.get(
    '/analytics/inbox/conversations',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'Conversations with their message totals in a range',
        querystring: Type.Object({
          ...InboxFilters,
          ...SourceFilter,
          page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
          sortBy: Type.Optional(Type.Union(SORTS.map((s) => Type.Literal(s)))),
          order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
        }),
        response: { 200: ConversationListResponse, ...errorResponses(400, 401, 402) },
      },
    },
    async (request) => listInboxConversationAnalytics(ctx, request.principal, request.query),
  );
}
