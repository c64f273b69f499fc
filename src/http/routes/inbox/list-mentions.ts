import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listInboxMentions } from '../../../domain/inbox/mentions.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses, Nullable } from '../../schemas/common.js';
import { AccountId, ListMeta, PlatformFilter, SortOrder } from './schemas.js';

const Mention = Type.Object({
  id: Type.String({ description: "Herald's id of the mention (the next page's cursor is the last one's)" }),
  platform: Type.String(),
  accountId: Type.String(),
  accountUsername: Type.String(),
  content: Type.String({ description: 'Text of the post or comment that mentions the account' }),
  permalink: Nullable(Type.String()),
  authorUrn: Nullable(
    Type.String({ description: "The author's URN where the platform names people by URN; else null (see authorId)" }),
  ),
  authorId: Nullable(Type.String()),
  authorName: Nullable(Type.String()),
  authorUsername: Nullable(Type.String()),
  authorPicture: Nullable(Type.String()),
  mediaId: Type.String({ description: 'The post the mention is in: `mediaId` of POST /v1/inbox/mentions/reply' }),
  commentId: Nullable(Type.String({ description: 'The mentioning comment, when the mention is in one' })),
  platformMentionId: Type.String(),
  organizationalEntity: Type.Optional(
    Type.String({ description: 'URN of the organization (page) that was mentioned, where the platform names one' }),
  ),
  publishedAt: DateTime,
  createdAt: DateTime,
});

export default function listMentionsRoute(app: App, ctx: AppContext) {
  app.get(
    '/inbox/mentions',
    {
      schema: {
        tags: ['Comments'],
        summary: 'List mentions of the connected accounts (platforms whose mentions Herald reads)',
        querystring: Type.Object({
          accountId: Type.Optional(AccountId),
          profileId: Type.Optional(Type.String({ maxLength: 64 })),
          platform: Type.Optional(PlatformFilter),
          cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
          sortOrder: Type.Optional(SortOrder),
        }),
        response: {
          200: Type.Object({
            data: Type.Array(Mention),
            pagination: Type.Object({ hasMore: Type.Boolean(), cursor: Nullable(Type.String()) }),
            meta: Type.Composite([Type.Object({ total: Type.Integer(), sortOrder: SortOrder }), ListMeta]),
          }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => listInboxMentions(ctx, request.principal, request.query),
  );
}
