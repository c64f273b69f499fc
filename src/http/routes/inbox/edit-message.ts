import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { editInboxMessage } from '../../../domain/inbox/conversations.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountId, PlatformItemId } from './schemas.js';

export default function editMessageRoute(app: App, ctx: AppContext) {
  app.patch(
    '/inbox/conversations/:conversationId/messages/:messageId',
    {
      schema: {
        tags: ['Messages'],
        summary: 'Edit a message the account sent (platforms that allow it)',
        params: Type.Object({ conversationId: PlatformItemId, messageId: PlatformItemId }),
        body: Type.Object({
          accountId: AccountId,
          text: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000 })),
          replyMarkup: Type.Optional(
            Type.Object({
              type: Type.Optional(Type.Literal('inline_keyboard')),
              keyboard: Type.Array(
                Type.Array(
                  Type.Object({
                    text: Type.String({ minLength: 1, maxLength: 200 }),
                    callbackData: Type.Optional(Type.String({ maxLength: 64 })),
                    url: Type.Optional(Type.String({ maxLength: 2000 })),
                  }),
                  { minItems: 1, maxItems: 8 },
                ),
                { maxItems: 20 },
              ),
            }),
          ),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            data: Type.Object({ messageId: Type.Union([Type.Integer(), Type.String()]) }),
          }),
          ...errorResponses(400, 401, 403, 404, 429, 502),
        },
      },
    },
    async (request) =>
      editInboxMessage(ctx, request.principal, request.params.conversationId, request.params.messageId, request.body),
  );
}
