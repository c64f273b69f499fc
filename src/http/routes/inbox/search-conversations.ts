import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { searchInboxConversations } from '../../../domain/inbox/search.js';
import type { App } from '../../app.js';
import { errorResponses, Nullable } from '../../schemas/common.js';
import { AccountId, Cursor, ListMeta, Pagination, PlatformFilter } from './schemas.js';

export default function searchConversationsRoute(app: App, ctx: AppContext) {
  app.get(
    '/inbox/conversations/search',
    {
      schema: {
        tags: ['Messages'],
        summary: 'Search conversations by message text and by contact',
        querystring: Type.Object({
          query: Type.String({ minLength: 1, maxLength: 200 }),
          accountId: Type.Optional(AccountId),
          profileId: Type.Optional(Type.String({ maxLength: 64 })),
          platform: Type.Optional(PlatformFilter),
          direction: Type.Optional(Type.Union([Type.Literal('incoming'), Type.Literal('outgoing')])),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
          cursor: Type.Optional(Cursor),
        }),
        response: {
          200: Type.Object({
            data: Type.Array(
              Type.Object({
                conversation: Type.Object({
                  id: Type.String(),
                  platform: Type.String(),
                  accountId: Type.String(),
                  participantName: Nullable(Type.String()),
                  participantUsername: Nullable(Type.String()),
                  participantPicture: Nullable(Type.String()),
                  status: Type.String(),
                  lastMessage: Nullable(Type.String()),
                  lastMessageAt: Nullable(Type.String()),
                }),
                matchCount: Type.Integer(),
                matches: Type.Array(
                  Type.Object({
                    id: Type.String(),
                    text: Nullable(Type.String()),
                    direction: Type.String(),
                    timestamp: Type.String(),
                  }),
                ),
              }),
            ),
            pagination: Pagination,
            meta: Type.Object({
              ...ListMeta.properties,
              accountsSkipped: Type.Array(Type.Object({ accountId: Type.String(), platform: Type.String() })),
            }),
          }),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request) => searchInboxConversations(ctx, request.principal, request.query),
  );
}
