import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { getPost } from '../../../domain/posts/read-posts.js';
import { presentPost } from '../../../domain/present/posts.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { Post, PostParams } from './schemas.js';

export default function getPostRoute(app: App, ctx: AppContext) {
  app.get(
    '/posts/:postId',
    {
      schema: {
        tags: ['Posts'],
        summary: 'Get a post with its targets',
        params: PostParams,
        response: { 200: Type.Object({ post: Post }), ...errorResponses(401, 404) },
      },
    },
    async (request) => ({ post: presentPost(await getPost(ctx, request.principal, request.params.postId)) }),
  );
}
