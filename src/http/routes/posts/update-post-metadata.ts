import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { updatePostMetadata } from '../../../domain/posts/update-metadata.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { PlatformName, PostParams } from './schemas.js';

export default function updatePostMetadataRoute(app: App, ctx: AppContext) {
  app.post(
    '/posts/:postId/update-metadata',
    {
      schema: {
        tags: ['Posts'],
        summary:
          "Update a published video's title, description, tags, category, privacy or thumbnail without re-uploading (postId _ with videoId and accountId for any video of the account)",
        params: PostParams,
        body: Type.Object({
          platform: PlatformName,
          videoId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          accountId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          title: Type.Optional(Type.String({ maxLength: 1000 })),
          description: Type.Optional(Type.String({ maxLength: 100_000 })),
          tags: Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 500 })),
          categoryId: Type.Optional(Type.String({ minLength: 1, maxLength: 16 })),
          privacyStatus: Type.Optional(
            Type.Union([Type.Literal('public'), Type.Literal('private'), Type.Literal('unlisted')]),
          ),
          thumbnailUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
          madeForKids: Type.Optional(Type.Boolean()),
          containsSyntheticMedia: Type.Optional(Type.Boolean()),
          playlistId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            videoId: Type.Optional(Type.String()),
            updatedFields: Type.Array(Type.String()),
          }),
          ...errorResponses(400, 401, 403, 404, 502),
        },
      },
    },
    async (request) => {
      const result = await updatePostMetadata(ctx, request.principal, request.params.postId, request.body);
      return { success: true, message: `Updated ${result.updatedFields.join(', ')}`, ...result };
    },
  );
}
