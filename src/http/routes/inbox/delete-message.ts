import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { deleteInboxMessage } from '../../../domain/inbox/message-actions.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountQuery, PlatformItemId } from './schemas.js';

export default function deleteMessageRoute(app: App, ctx: AppContext) {
  app.delete(
    '/inbox/conversations/:conversationId/messages/:messageId',
    {
      schema: {
        tags: ['Messages'],
        summary: 'Delete a message (platforms that allow it)',
        params: Type.Object({ conversationId: PlatformItemId, messageId: PlatformItemId }),
        querystring: AccountQuery,
        response: {
          200: Type.Object({ success: Type.Boolean() }),
          ...errorResponses(400, 401, 403, 404, 429, 502),
        },
      },
    },
    async (request) =>
      deleteInboxMessage(
        ctx,
        request.principal,
        request.params.conversationId,
        request.params.messageId,
        request.query.accountId,
      ),
  );
}
