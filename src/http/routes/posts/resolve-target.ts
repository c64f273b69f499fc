import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { resolveTarget } from '../../../domain/posts/resolve-target.js';
import { presentPost } from '../../../domain/present/posts.js';
import type { App } from '../../app.js';
import { errorResponses, PathId } from '../../schemas/common.js';
import { MessageAndPost } from './schemas.js';

const Params = Type.Object({
  postId: PathId,
  target: Type.String({
    minLength: 1,
    maxLength: 64,
    description: "The target's accountId, or its platform when the post has one unknown target there",
  }),
});

const Body = Type.Union([
  Type.Object(
    {
      outcome: Type.Literal('published'),
      platformPostUrl: Type.String({
        minLength: 8,
        maxLength: 2048,
        pattern: '^https?://',
        description: 'Where the post is on the platform',
      }),
      platformPostId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    },
    { additionalProperties: false },
  ),
  Type.Object({ outcome: Type.Literal('not_published') }, { additionalProperties: false }),
]);

export default function resolveTargetRoute(app: App, ctx: AppContext) {
  app.post(
    '/posts/:postId/targets/:target/resolve',
    {
      schema: {
        tags: ['Posts'],
        summary:
          'Settle a target whose outcome is unknown with what you saw on the platform (published with its URL, or not published)',
        params: Params,
        body: Body,
        response: { 200: MessageAndPost, ...errorResponses(400, 401, 404, 409, 422) },
      },
    },
    async (request) => {
      const { postId, target } = request.params;
      const view = await resolveTarget(ctx, request.principal, postId, target, request.body);
      const message =
        request.body.outcome === 'published'
          ? 'Target recorded as published'
          : 'Target recorded as not published: retry the post to send it again';
      return { message, post: presentPost(view) };
    },
  );
}
