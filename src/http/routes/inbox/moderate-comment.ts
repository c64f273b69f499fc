import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { moderateInboxComment } from '../../../domain/inbox/comment-actions.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountId, CommentParams, PlatformFilter } from './schemas.js';

export default function moderateCommentRoute(app: App, ctx: AppContext) {
  app.post(
    '/inbox/comments/:postId/:commentId/moderation',
    {
      schema: {
        tags: ['Comments'],
        summary: "Set a comment's moderation status (platforms with a moderation queue)",
        params: CommentParams,
        body: Type.Object({
          accountId: AccountId,
          platform: Type.Optional(PlatformFilter),
          moderationStatus: Type.Union([
            Type.Literal('published'),
            Type.Literal('rejected'),
            Type.Literal('heldForReview'),
          ]),
          banAuthor: Type.Optional(Type.Boolean()),
        }),
        response: {
          200: Type.Object({ success: Type.Boolean() }),
          ...errorResponses(400, 401, 403, 404, 429, 502),
        },
      },
    },
    async (request) =>
      moderateInboxComment(ctx, request.principal, request.params.postId, request.params.commentId, request.body),
  );
}
