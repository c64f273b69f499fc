import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { likeInboxComment, unlikeInboxComment } from '../../../domain/inbox/comments.js';
import type { App } from '../../app.js';
import { errorResponses, Nullable } from '../../schemas/common.js';
import { AccountId, CommentParams } from './schemas.js';

/** POST likes, DELETE unlikes (Bluesky: `cid` to like, the `likeUri` the like returned to unlike). */
export default function likeCommentRoutes(app: App, ctx: AppContext) {
  const errors = errorResponses(400, 401, 403, 404, 429, 502);
  app.post(
    '/inbox/comments/:postId/:commentId/like',
    {
      schema: {
        tags: ['Comments'],
        summary: 'Like a comment',
        params: CommentParams,
        body: Type.Object({ accountId: AccountId, cid: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }),
        response: {
          200: Type.Object({
            status: Type.String(),
            commentId: Type.String(),
            liked: Type.Boolean(),
            likeUri: Nullable(Type.String()),
            platform: Type.String(),
          }),
          ...errors,
        },
      },
    },
    async (request) =>
      likeInboxComment(ctx, request.principal, request.params.postId, request.params.commentId, request.body),
  );
  app.delete(
    '/inbox/comments/:postId/:commentId/like',
    {
      schema: {
        tags: ['Comments'],
        summary: 'Unlike a comment',
        params: CommentParams,
        querystring: Type.Object({
          accountId: AccountId,
          likeUri: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
        }),
        response: {
          200: Type.Object({
            status: Type.String(),
            commentId: Type.String(),
            liked: Type.Boolean(),
            platform: Type.String(),
          }),
          ...errors,
        },
      },
    },
    async (request) =>
      unlikeInboxComment(ctx, request.principal, request.params.postId, request.params.commentId, request.query),
  );
}
