import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { unpublishPost } from '../../../domain/posts/unpublish-post.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { PlatformName, PostParams } from './schemas.js';

export default function unpublishPostRoute(app: App, ctx: AppContext) {
  app.post(
    '/posts/:postId/unpublish',
    {
      schema: {
        tags: ['Posts'],
        summary: 'Delete the published post from one platform; the post is kept with status cancelled',
        params: PostParams,
        body: Type.Object({ platform: PlatformName }),
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String() }),
          ...errorResponses(400, 401, 404, 409, 422, 502),
        },
      },
    },
    async (request) => {
      await unpublishPost(ctx, request.principal, request.params.postId, request.body.platform);
      return { success: true, message: `Post removed from ${request.body.platform}` };
    },
  );
}
