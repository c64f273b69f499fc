import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { markInboxConversationRead, sendInboxTyping } from '../../../domain/inbox/message-actions.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountBody, ConversationParams } from './schemas.js';

/** POST .../read (Herald's unread count) and POST .../typing (best effort on the platform). */
export default function conversationSignalsRoutes(app: App, ctx: AppContext) {
  app.post(
    '/inbox/conversations/:conversationId/read',
    {
      schema: {
        tags: ['Messages'],
        summary: 'Mark a conversation as read',
        params: ConversationParams,
        body: AccountBody,
        response: {
          200: Type.Object({ success: Type.Boolean(), markedCount: Type.Integer() }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) =>
      markInboxConversationRead(ctx, request.principal, request.params.conversationId, request.body.accountId),
  );
  app.post(
    '/inbox/conversations/:conversationId/typing',
    {
      schema: {
        tags: ['Messages'],
        summary: 'Show a typing indicator (best effort)',
        params: ConversationParams,
        body: AccountBody,
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => sendInboxTyping(ctx, request.principal, request.params.conversationId, request.body.accountId),
  );
}
