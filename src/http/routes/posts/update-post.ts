import type { AppContext } from '../../../context.js';
import { updatePost } from '../../../domain/posts/update-post.js';
import { presentPost } from '../../../domain/present/posts.js';
import type { App } from '../../app.js';
import { answerInTransaction } from '../../idempotency.js';
import { errorResponses } from '../../schemas/common.js';
import { MessageAndPost, PostBody, PostParams } from './schemas.js';

export default function updatePostRoute(app: App, ctx: AppContext) {
  app.put(
    '/posts/:postId',
    {
      schema: {
        tags: ['Posts'],
        summary: 'Update a draft, scheduled or failed post (a new time re-arms its publishing)',
        params: PostParams,
        body: PostBody,
        response: { 200: MessageAndPost, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      const present = ({ view, message }: Awaited<ReturnType<typeof updatePost>>) => ({
        message,
        post: presentPost(view),
      });
      // With an Idempotency-Key, the answer commits with the change (http/idempotency.ts).
      answerInTransaction(request, reply, present);
      return present(await updatePost(ctx, request.principal, request.params.postId, request.body));
    },
  );
}
