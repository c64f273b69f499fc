import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { syncExternal } from '../../../domain/posts/sync-external.js';
import type { App } from '../../app.js';
import { errorResponses, Nullable } from '../../schemas/common.js';

const ExternalPostSummary = Type.Object({
  platform: Type.String(),
  platformPostId: Type.String(),
  platformPostUrl: Nullable(Type.String()),
  content: Type.String(),
  publishedAt: Nullable(Type.String()),
  mediaType: Type.Optional(Type.String()),
  thumbnailUrl: Type.Optional(Type.String()),
});

export default function syncExternalPostsRoute(app: App, ctx: AppContext) {
  app.post(
    '/posts/sync-external',
    {
      schema: {
        tags: ['Posts'],
        summary:
          "Read an account's latest posts live from its platform and import those made outside Herald; with url or postId, find that one",
        body: Type.Object({
          accountId: Type.String({ minLength: 1, maxLength: 64 }),
          url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
          postId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        }),
        response: {
          200: Type.Object({
            synced: Type.Object({
              postsFound: Type.Integer(),
              postsSynced: Type.Integer(),
              skipped: Type.Boolean({
                description: 'Synced less than 15 s ago: answered without calling the platform',
              }),
            }),
            found: Type.Optional(Type.Boolean()),
            post: Type.Optional(Nullable(ExternalPostSummary)),
            posts: Type.Optional(Type.Array(ExternalPostSummary)),
          }),
          ...errorResponses(400, 401, 403, 404, 409, 502),
        },
      },
    },
    async (request) => syncExternal(ctx, request.principal, request.body),
  );
}
