import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { hideInboxComment } from '../../../domain/inbox/comments.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountBody, AccountQuery, CommentParams } from './schemas.js';

const Answer = Type.Object({
  status: Type.String(),
  commentId: Type.String(),
  hidden: Type.Boolean(),
  platform: Type.String(),
});

/** POST hides, DELETE unhides: one resource, the two verbs of one endpoint. */
export default function hideCommentRoutes(app: App, ctx: AppContext) {
  const schema = {
    tags: ['Comments'],
    params: CommentParams,
    response: { 200: Answer, ...errorResponses(400, 401, 403, 404, 429, 502) },
  };
  app.post(
    '/inbox/comments/:postId/:commentId/hide',
    { schema: { ...schema, summary: 'Hide a comment', body: AccountBody } },
    async (request) =>
      hideInboxComment(
        ctx,
        request.principal,
        request.params.postId,
        request.params.commentId,
        request.body.accountId,
        true,
      ),
  );
  app.delete(
    '/inbox/comments/:postId/:commentId/hide',
    { schema: { ...schema, summary: 'Unhide a comment', querystring: AccountQuery } },
    async (request) =>
      hideInboxComment(
        ctx,
        request.principal,
        request.params.postId,
        request.params.commentId,
        request.query.accountId,
        false,
      ),
  );
}
