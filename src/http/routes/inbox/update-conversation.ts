import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { updateInboxConversation } from '../../../domain/inbox/conversations.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses } from '../../schemas/common.js';
import { AccountId, ConversationParams } from './schemas.js';

export default function updateConversationRoute(app: App, ctx: AppContext) {
  app.put(
    '/inbox/conversations/:conversationId',
    {
      schema: {
        tags: ['Messages'],
        summary: 'Archive or reactivate a conversation',
        params: ConversationParams,
        body: Type.Object({
          accountId: AccountId,
          status: Type.Union([Type.Literal('active'), Type.Literal('archived')]),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            data: Type.Object({
              id: Type.String(),
              accountId: Type.String(),
              status: Type.String(),
              platform: Type.String(),
              updatedAt: DateTime,
            }),
          }),
          ...errorResponses(400, 401, 403, 404, 429, 502),
        },
      },
    },
    async (request) => updateInboxConversation(ctx, request.principal, request.params.conversationId, request.body),
  );
}
