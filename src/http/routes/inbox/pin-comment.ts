import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { pinInboxComment } from '../../../domain/inbox/comment-actions.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountBody, AccountQuery, CommentParams } from './schemas.js';

/** POST pins, DELETE unpins a comment. */
export default function pinCommentRoutes(app: App, ctx: AppContext) {
  const schema = {
    tags: ['Comments'],
    params: CommentParams,
    response: {
      200: Type.Object({
        status: Type.String(),
        commentId: Type.String(),
        pinned: Type.Boolean(),
        platform: Type.String(),
      }),
      ...errorResponses(400, 401, 403, 404, 429, 502),
    },
  };
  app.post(
    '/inbox/comments/:postId/:commentId/pin',
    { schema: { ...schema, summary: 'Pin a comment', body: AccountBody } },
    async (request) =>
      pinInboxComment(
        ctx,
        request.principal,
        request.params.postId,
        request.params.commentId,
        request.body.accountId,
        true,
      ),
  );
  app.delete(
    '/inbox/comments/:postId/:commentId/pin',
    { schema: { ...schema, summary: 'Unpin a comment', querystring: AccountQuery } },
    async (request) =>
      pinInboxComment(
        ctx,
        request.principal,
        request.params.postId,
        request.params.commentId,
        request.query.accountId,
        false,
      ),
  );
}
