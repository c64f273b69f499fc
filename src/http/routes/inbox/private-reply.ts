import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { privateReplyToComment } from '../../../domain/inbox/comments.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountId, CommentParams } from './schemas.js';

export default function privateReplyRoute(app: App, ctx: AppContext) {
  app.post(
    '/inbox/comments/:postId/:commentId/private-reply',
    {
      schema: {
        tags: ['Comments'],
        summary: 'Answer a comment in a direct message to its author (platforms that allow it)',
        params: CommentParams,
        body: Type.Object({ accountId: AccountId, message: Type.String({ minLength: 1, maxLength: 10_000 }) }),
        response: {
          200: Type.Object({
            status: Type.String(),
            messageId: Type.String(),
            commentId: Type.String(),
            platform: Type.String(),
          }),
          ...errorResponses(400, 401, 403, 404, 429, 502),
        },
      },
    },
    async (request) =>
      privateReplyToComment(ctx, request.principal, request.params.postId, request.params.commentId, request.body),
  );
}
