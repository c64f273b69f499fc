import type { AppContext } from '../../../context.js';
import { createPost } from '../../../domain/posts/create-post.js';
import { presentPost } from '../../../domain/present/posts.js';
import type { App } from '../../app.js';
import { answerInTransaction } from '../../idempotency.js';
import { errorResponses } from '../../schemas/common.js';
import { MessageAndPost, PostBody } from './schemas.js';

export default function createPostRoute(app: App, ctx: AppContext) {
  app.post(
    '/posts',
    {
      schema: {
        tags: ['Posts'],
        summary: 'Create a post: draft, publish now, scheduled (optionally in a time zone)',
        description:
          'Mode precedence: isDraft, then publishNow, then scheduledFor (a past time publishes now), then queuedFromProfile, else draft. ' +
          'publishNow answers before the platforms do: status `publishing`, targets `pending`. Accepts an Idempotency-Key header.',
        body: PostBody,
        response: { 201: MessageAndPost, ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const present = ({ view, message }: Awaited<ReturnType<typeof createPost>>) => ({
        message,
        post: presentPost(view),
      });
      // With an Idempotency-Key, the answer commits with the post (http/idempotency.ts).
      reply.status(201);
      answerInTransaction(request, reply, present);
      return reply.send(present(await createPost(ctx, request.principal, request.body)));
    },
  );
}
