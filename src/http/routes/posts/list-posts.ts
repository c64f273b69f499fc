import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listPosts } from '../../../domain/posts/read-posts.js';
import { presentPost } from '../../../domain/present/posts.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { PlatformName, Post, StatusFilter } from './schemas.js';

const Sort = Type.Union(
  (['scheduled-desc', 'scheduled-asc', 'created-desc', 'created-asc', 'status', 'platform'] as const).map((s) =>
    Type.Literal(s),
  ),
);

const Query = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'default 10' })),
  status: Type.Optional(StatusFilter),
  platform: Type.Optional(PlatformName),
  profileId: Type.Optional(Type.String({ maxLength: 64 })),
  dateFrom: Type.Optional(
    Type.String({ maxLength: 64, description: 'YYYY-MM-DD or ISO date-time (scheduledFor, else createdAt)' }),
  ),
  dateTo: Type.Optional(Type.String({ maxLength: 64 })),
  search: Type.Optional(Type.String({ maxLength: 500 })),
  sortBy: Type.Optional(Sort),
});

export default function listPostsRoute(app: App, ctx: AppContext) {
  app.get(
    '/posts',
    {
      schema: {
        tags: ['Posts'],
        summary: "List the caller's posts, filtered and paged",
        querystring: Query,
        response: {
          200: Type.Object({
            posts: Type.Array(Post),
            pagination: Type.Object({
              page: Type.Integer(),
              limit: Type.Integer(),
              total: Type.Integer(),
              pages: Type.Integer(),
            }),
          }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const { views, pagination } = await listPosts(ctx, request.principal, request.query);
      return { posts: views.map(presentPost), pagination };
    },
  );
}
