import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { getInboxPostComments } from '../../../domain/inbox/comments.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses, Nullable } from '../../schemas/common.js';
import { AccountId, Comment, Cursor, PlatformItemId, PostParams } from './schemas.js';

export default function getPostCommentsRoute(app: App, ctx: AppContext) {
  app.get(
    '/inbox/comments/:postId',
    {
      schema: {
        tags: ['Comments'],
        summary: "A post's comments, oldest first, each with its replies",
        params: PostParams,
        querystring: Type.Object({
          accountId: AccountId,
          subreddit: Type.Optional(Type.String({ maxLength: 100 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
          cursor: Type.Optional(Cursor),
          commentId: Type.Optional(PlatformItemId),
        }),
        response: {
          200: Type.Object({
            status: Type.String(),
            comments: Type.Array(Comment),
            pagination: Type.Object({ hasMore: Type.Boolean(), cursor: Nullable(Type.String()) }),
            meta: Type.Object({
              platform: Type.String(),
              postId: Type.String(),
              accountId: Type.String(),
              subreddit: Nullable(Type.String()),
              lastUpdated: DateTime,
            }),
          }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => getInboxPostComments(ctx, request.principal, request.params.postId, request.query),
  );
}
