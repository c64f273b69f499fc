import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { getInboxConversation } from '../../../domain/inbox/conversations.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountQuery, ConversationDetail, ConversationParams } from './schemas.js';

export default function getConversationRoute(app: App, ctx: AppContext) {
  app.get(
    '/inbox/conversations/:conversationId',
    {
      schema: {
        tags: ['Messages'],
        summary: 'Get a conversation (its id is the platform id, with the account)',
        params: ConversationParams,
        querystring: AccountQuery,
        response: { 200: Type.Object({ data: ConversationDetail }), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      getInboxConversation(ctx, request.principal, request.params.conversationId, request.query.accountId),
  );
}
