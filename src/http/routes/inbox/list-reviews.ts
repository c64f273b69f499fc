import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listInboxReviews } from '../../../domain/inbox/reviews.js';
import type { App } from '../../app.js';
import { errorResponses, Nullable } from '../../schemas/common.js';
import { AccountId, Cursor, ListMeta, Pagination, PlatformFilter, Review, SortOrder } from './schemas.js';

const Rating = Type.Integer({ minimum: 1, maximum: 5 });

export default function listReviewsRoute(app: App, ctx: AppContext) {
  app.get(
    '/inbox/reviews',
    {
      schema: {
        tags: ['Reviews'],
        summary: 'List reviews across accounts, with a summary of the filtered set',
        querystring: Type.Object({
          profileId: Type.Optional(Type.String({ maxLength: 64 })),
          platform: Type.Optional(PlatformFilter),
          minRating: Type.Optional(Rating),
          maxRating: Type.Optional(Rating),
          hasReply: Type.Optional(Type.Boolean()),
          sortBy: Type.Optional(Type.Union([Type.Literal('date'), Type.Literal('rating')])),
          sortOrder: Type.Optional(SortOrder),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 25 })),
          cursor: Type.Optional(Cursor),
          accountId: Type.Optional(AccountId),
        }),
        response: {
          200: Type.Object({
            status: Type.String(),
            data: Type.Array(Review),
            pagination: Pagination,
            meta: ListMeta,
            summary: Type.Object({ totalReviews: Type.Integer(), averageRating: Nullable(Type.Number()) }),
          }),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request) => listInboxReviews(ctx, request.principal, request.query),
  );
}
