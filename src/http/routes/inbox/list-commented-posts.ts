import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listInboxCommentedPosts } from '../../../domain/inbox/comments.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses } from '../../schemas/common.js';
import { AccountId, CommentedPost, Cursor, ListMeta, Pagination, PlatformFilter, SortOrder } from './schemas.js';

export default function listCommentedPostsRoute(app: App, ctx: AppContext) {
  app.get(
    '/inbox/comments',
    {
      schema: {
        tags: ['Comments'],
        summary: "List the accounts' posts that have comments, most recently commented first",
        querystring: Type.Object({
          profileId: Type.Optional(Type.String({ maxLength: 64 })),
          platform: Type.Optional(PlatformFilter),
          minComments: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
          since: Type.Optional(DateTime),
          sortBy: Type.Optional(Type.Union([Type.Literal('date'), Type.Literal('comments')])),
          sortOrder: Type.Optional(SortOrder),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
          cursor: Type.Optional(Cursor),
          accountId: Type.Optional(AccountId),
        }),
        response: {
          200: Type.Object({ data: Type.Array(CommentedPost), pagination: Pagination, meta: ListMeta }),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request) => listInboxCommentedPosts(ctx, request.principal, request.query),
  );
}
