import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { editInboxComment } from '../../../domain/inbox/comment-actions.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountId, CommentParams, PlatformFilter } from './schemas.js';

export default function editCommentRoute(app: App, ctx: AppContext) {
  app.patch(
    '/inbox/comments/:postId/:commentId',
    {
      schema: {
        tags: ['Comments'],
        summary: 'Edit a comment the account wrote (platforms that allow it)',
        params: CommentParams,
        body: Type.Object({
          accountId: AccountId,
          platform: Type.Optional(PlatformFilter),
          content: Type.String({ minLength: 1, maxLength: 10_000 }),
        }),
        response: {
          200: Type.Object({ status: Type.String(), commentId: Type.String(), platform: Type.String() }),
          ...errorResponses(400, 401, 403, 404, 429, 502),
        },
      },
    },
    async (request) =>
      editInboxComment(ctx, request.principal, request.params.postId, request.params.commentId, request.body),
  );
}
