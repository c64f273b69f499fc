import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { deleteInboxComment } from '../../../domain/inbox/comments.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountId, PlatformItemId, PostParams } from './schemas.js';

export default function deleteCommentRoute(app: App, ctx: AppContext) {
  app.delete(
    '/inbox/comments/:postId',
    {
      schema: {
        tags: ['Comments'],
        summary: 'Delete a comment',
        params: PostParams,
        querystring: Type.Object({ accountId: AccountId, commentId: PlatformItemId }),
        response: {
          200: Type.Object({ success: Type.Boolean(), data: Type.Object({ message: Type.String() }) }),
          ...errorResponses(400, 401, 403, 404, 429, 502),
        },
      },
    },
    async (request) => deleteInboxComment(ctx, request.principal, request.params.postId, request.query),
  );
}
