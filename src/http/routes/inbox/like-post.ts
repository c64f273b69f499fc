import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { likeInboxPost } from '../../../domain/inbox/comment-actions.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountId, PostParams } from './schemas.js';

/** POST likes, DELETE unlikes a post as the account (Bluesky: the `likeUri` the like returned). */
export default function likePostRoutes(app: App, ctx: AppContext) {
  const answer = {
    status: Type.String(),
    postId: Type.String(),
    platform: Type.String(),
    liked: Type.Boolean(),
  };
  const errors = errorResponses(400, 401, 403, 404, 429, 502);
  app.post(
    '/inbox/posts/:postId/like',
    {
      schema: {
        tags: ['Comments'],
        summary: 'Like a post',
        params: PostParams,
        body: Type.Object({
          accountId: AccountId,
          reactionType: Type.Optional(Type.String({ maxLength: 32 })),
          cid: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        }),
        response: { 200: Type.Object({ ...answer, likeUri: Type.Optional(Type.String()) }), ...errors },
      },
    },
    async (request) =>
      likeInboxPost(ctx, request.principal, request.params.postId, {
        accountId: request.body.accountId,
        cid: request.body.cid,
        liked: true,
      }),
  );
  app.delete(
    '/inbox/posts/:postId/like',
    {
      schema: {
        tags: ['Comments'],
        summary: 'Unlike a post',
        params: PostParams,
        querystring: Type.Object({
          accountId: AccountId,
          likeUri: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
        }),
        response: { 200: Type.Object(answer), ...errors },
      },
    },
    async (request) =>
      likeInboxPost(ctx, request.principal, request.params.postId, {
        accountId: request.query.accountId,
        likeUri: request.query.likeUri,
        liked: false,
      }),
  );
}
