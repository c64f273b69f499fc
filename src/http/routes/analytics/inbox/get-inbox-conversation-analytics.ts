import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../../context.js';
import { getInboxConversationAnalytics } from '../../../../domain/analytics/inbox-conversations.js';
import type { App } from '../../../app.js';
import { errorResponses } from '../../../schemas/common.js';
import { ConversationResponse, InboxRange } from './schemas.js';

export default function getInboxConversationAnalyticsRoute(app: App, ctx: AppContext) {
  app.get(
    '/analytics/inbox/conversations/:conversationId',
    {
      schema: {
        tags: ['Analytics'],
        summary: "One conversation's messages by day and source",
        params: Type.Object({ conversationId: Type.String({ minLength: 1, maxLength: 200 }) }),
        querystring: Type.Object({ ...InboxRange }),
        response: { 200: ConversationResponse, ...errorResponses(400, 401, 402, 404) },
      },
    },
    async (request) =>
      getInboxConversationAnalytics(ctx, request.principal, request.params.conversationId, request.query),
  );
}
