import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { createInboxConversation } from '../../../domain/inbox/message-actions.js';
import type { App } from '../../app.js';
import { errorResponses, Nullable } from '../../schemas/common.js';
import { AccountId, PlatformItemId } from './schemas.js';

export default function createConversationRoute(app: App, ctx: AppContext) {
  app.post(
    '/inbox/conversations',
    {
      schema: {
        tags: ['Messages'],
        summary: 'Start a conversation with someone (platforms that allow it)',
        body: Type.Object({
          accountId: AccountId,
          participantId: Type.Optional(PlatformItemId),
          participantUsername: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          message: Type.Optional(Type.String({ maxLength: 10_000 })),
          skipDmCheck: Type.Optional(Type.Boolean()),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            data: Type.Object({
              messageId: Type.String(),
              conversationId: Type.String(),
              participantId: Type.String(),
              participantName: Nullable(Type.String()),
              participantUsername: Nullable(Type.String()),
            }),
          }),
          ...errorResponses(400, 401, 403, 404, 429, 502),
        },
      },
    },
    async (request) => createInboxConversation(ctx, request.principal, request.body),
  );
}
