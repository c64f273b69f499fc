import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listInboxConversations } from '../../../domain/inbox/conversations.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountId, Conversation, Cursor, ListMeta, Pagination, PlatformFilter, SortOrder } from './schemas.js';

export default function listConversationsRoute(app: App, ctx: AppContext) {
  app.get(
    '/inbox/conversations',
    {
      schema: {
        tags: ['Messages'],
        summary: 'List conversations (direct messages) across accounts, newest first',
        querystring: Type.Object({
          profileId: Type.Optional(Type.String({ maxLength: 64 })),
          platform: Type.Optional(PlatformFilter),
          status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('archived')])),
          sortOrder: Type.Optional(SortOrder),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
          cursor: Type.Optional(Cursor),
          accountId: Type.Optional(AccountId),
        }),
        response: {
          200: Type.Object({ data: Type.Array(Conversation), pagination: Pagination, meta: ListMeta }),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request) => listInboxConversations(ctx, request.principal, request.query),
  );
}
