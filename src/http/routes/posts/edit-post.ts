import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { editPost } from '../../../domain/posts/edit-post.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { PlatformName, PostParams } from './schemas.js';

export default function editPostRoute(app: App, ctx: AppContext) {
  app.post(
    '/posts/:postId/edit',
    {
      schema: {
        tags: ['Posts'],
        summary:
          'Edit the text of a published post on one platform, through its own edit API (400 PLATFORM_LIMITATION where it has none)',
        params: PostParams,
        body: Type.Object({
          platform: PlatformName,
          content: Type.String({ minLength: 1, maxLength: 100_000 }),
          accountId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            id: Type.String({ description: 'The platform post id after the edit (X gives a new one)' }),
            url: Type.Union([Type.String(), Type.Null()]),
            message: Type.String(),
          }),
          ...errorResponses(400, 401, 403, 404, 502),
        },
      },
    },
    async (request) => {
      const { platform } = request.body;
      const result = await editPost(ctx, request.principal, request.params.postId, request.body);
      return {
        success: true,
        id: result.platformPostId,
        url: result.platformPostUrl,
        message: `Post edited on ${platform}`,
      };
    },
  );
}
