import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { reactToInboxMessage } from '../../../domain/inbox/message-actions.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountId, AccountQuery, PlatformItemId } from './schemas.js';

/** POST adds a reaction to a message, DELETE removes the account's reaction. */
export default function messageReactionsRoutes(app: App, ctx: AppContext) {
  const schema = {
    tags: ['Messages'],
    params: Type.Object({ conversationId: PlatformItemId, messageId: PlatformItemId }),
    response: {
      200: Type.Object({ success: Type.Boolean(), messageId: Type.String(), platformMessageId: Type.String() }),
      ...errorResponses(400, 401, 403, 404, 429, 502),
    },
  };
  const path = '/inbox/conversations/:conversationId/messages/:messageId/reactions';
  app.post(
    path,
    {
      schema: {
        ...schema,
        summary: 'React to a message',
        body: Type.Object({ accountId: AccountId, emoji: Type.String({ minLength: 1, maxLength: 32 }) }),
      },
    },
    async (request) =>
      reactToInboxMessage(ctx, request.principal, request.params.conversationId, request.params.messageId, {
        accountId: request.body.accountId,
        emoji: request.body.emoji,
      }),
  );
  app.delete(
    path,
    { schema: { ...schema, summary: 'Remove a reaction from a message', querystring: AccountQuery } },
    async (request) =>
      reactToInboxMessage(ctx, request.principal, request.params.conversationId, request.params.messageId, {
        accountId: request.query.accountId,
        emoji: null,
      }),
  );
}
