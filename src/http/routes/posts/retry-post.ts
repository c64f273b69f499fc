import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { retryPost } from '../../../domain/posts/retry-post.js';
import { presentPost } from '../../../domain/present/posts.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { MessageAndPost, PostParams } from './schemas.js';

const Body = Type.Union([
  Type.Object(
    {
      resendUnknown: Type.Optional(
        Type.Boolean({
          description:
            'Also send again the targets whose outcome is unknown (you checked the platform: the post is not there). Default false: they are left alone.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  Type.Null(),
]);

export default function retryPostRoute(app: App, ctx: AppContext) {
  app.post(
    '/posts/:postId/retry',
    {
      schema: {
        tags: ['Posts'],
        summary: 'Publish the failed targets of a failed or partial post again',
        params: PostParams,
        body: Type.Optional(Body),
        response: { 200: MessageAndPost, ...errorResponses(400, 401, 404, 409, 422) },
      },
    },
    async (request) => {
      const { view, message } = await retryPost(ctx, request.principal, request.params.postId, {
        resendUnknown: request.body?.resendUnknown === true,
      });
      return { message, post: presentPost(view) };
    },
  );
}
