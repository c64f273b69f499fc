import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { replyToInboxPost } from '../../../domain/inbox/comments.js';
import type { App } from '../../app.js';
import { errorResponses, Nullable } from '../../schemas/common.js';
import { AccountId, PlatformItemId, PostParams } from './schemas.js';

export default function replyToPostRoute(app: App, ctx: AppContext) {
  app.post(
    '/inbox/comments/:postId',
    {
      schema: {
        tags: ['Comments'],
        summary: 'Comment on a post, or reply to one of its comments (commentId)',
        params: PostParams,
        body: Type.Object({
          accountId: AccountId,
          message: Type.String({ minLength: 1, maxLength: 10_000 }),
          commentId: Type.Optional(PlatformItemId),
          parentCid: Type.Optional(Type.String({ maxLength: 200 })),
          rootUri: Type.Optional(Type.String({ maxLength: 512 })),
          rootCid: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            data: Type.Object({ commentId: Type.String(), isReply: Type.Boolean(), cid: Nullable(Type.String()) }),
          }),
          ...errorResponses(400, 401, 403, 404, 429, 502),
        },
      },
    },
    async (request) => replyToInboxPost(ctx, request.principal, request.params.postId, request.body),
  );
}
