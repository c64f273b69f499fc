import type { AppContext } from '../../../context.js';
import { deletePost } from '../../../domain/posts/delete-post.js';
import type { App } from '../../app.js';
import { answerInTransaction } from '../../idempotency.js';
import { errorResponses, Message } from '../../schemas/common.js';
import { PostParams } from './schemas.js';

export default function deletePostRoute(app: App, ctx: AppContext) {
  app.delete(
    '/posts/:postId',
    {
      schema: {
        tags: ['Posts'],
        summary: 'Delete a post that is not published (its publish jobs go with it)',
        params: PostParams,
        response: { 200: Message, ...errorResponses(400, 401, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      const answer = { message: 'Post deleted successfully' };
      // With an Idempotency-Key, the answer commits with the delete (http/idempotency.ts).
      answerInTransaction(request, reply, () => answer);
      await deletePost(ctx, request.principal, request.params.postId);
      return answer;
    },
  );
}
