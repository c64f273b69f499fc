import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listInboxMessages } from '../../../domain/inbox/conversations.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses } from '../../schemas/common.js';
import { AccountId, ConversationParams, Cursor, Message, Pagination, SortOrder } from './schemas.js';

export default function listMessagesRoute(app: App, ctx: AppContext) {
  app.get(
    '/inbox/conversations/:conversationId/messages',
    {
      schema: {
        tags: ['Messages'],
        summary: "List a conversation's messages, oldest first",
        params: ConversationParams,
        querystring: Type.Object({
          accountId: AccountId,
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
          cursor: Type.Optional(Cursor),
          sortOrder: Type.Optional(SortOrder),
        }),
        response: {
          200: Type.Object({
            status: Type.String(),
            messages: Type.Array(Message),
            pagination: Pagination,
            lastUpdated: DateTime,
          }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => listInboxMessages(ctx, request.principal, request.params.conversationId, request.query),
  );
}
