import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listPlatformPosts } from '../../../domain/accounts/platform-posts.js';
import { presentPlatformPost } from '../../../domain/present/platform-posts.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses } from '../../schemas/common.js';
import { AccountParams } from './schemas.js';

export default function listPlatformPostsRoute(app: App, ctx: AppContext) {
  app.get(
    '/accounts/:accountId/posts',
    {
      schema: {
        tags: ['Accounts'],
        summary: 'List posts published on the platform',
        description:
          "The 25 most recent posts the account has on its platform, read live (posts made outside Herald too): the platform's own post ids, " +
          'which the analytics endpoints take. 400 PLATFORM_LIMITATION where the platform API lists no account posts; 401 TOKEN_EXPIRED when the ' +
          'token cannot be refreshed.',
        params: AccountParams,
        response: {
          200: Type.Object({
            status: Type.Literal('success'),
            posts: Type.Array(
              Type.Object({
                id: Type.String(),
                platform: Type.String(),
                message: Type.String(),
                createdTime: DateTime,
                permalink: Type.Optional(Type.String()),
                picture: Type.Optional(Type.String()),
                mediaType: Type.Optional(Type.String()),
              }),
            ),
            lastUpdated: DateTime,
          }),
          ...errorResponses(400, 401, 404, 429, 502),
        },
      },
    },
    async (request) => {
      const { row, posts } = await listPlatformPosts(ctx, request.principal, request.params.accountId);
      return {
        status: 'success' as const,
        posts: posts.map((p) => presentPlatformPost(row.platform, p)),
        lastUpdated: ctx.clock.now().toISOString(),
      };
    },
  );
}
