import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { deleteInboxReviewReply, replyToInboxReview } from '../../../domain/inbox/reviews.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses } from '../../schemas/common.js';
import { AccountBody, AccountId, ReviewParams } from './schemas.js';

/** POST replies to a review, DELETE removes the reply (its body carries accountId, as the SDK sends it). */
export default function reviewReplyRoutes(app: App, ctx: AppContext) {
  const errors = errorResponses(400, 401, 403, 404, 429, 502);
  app.post(
    '/inbox/reviews/:reviewId/reply',
    {
      schema: {
        tags: ['Reviews'],
        summary: 'Reply to a review',
        params: ReviewParams,
        body: Type.Object({ accountId: AccountId, message: Type.String({ minLength: 1, maxLength: 4096 }) }),
        response: {
          200: Type.Object({
            status: Type.String(),
            reply: Type.Object({ id: Type.String(), text: Type.String(), created: DateTime }),
            platform: Type.String(),
          }),
          ...errors,
        },
      },
    },
    async (request) => replyToInboxReview(ctx, request.principal, request.params.reviewId, request.body),
  );
  app.delete(
    '/inbox/reviews/:reviewId/reply',
    {
      schema: {
        tags: ['Reviews'],
        summary: "Delete the account's reply to a review",
        params: ReviewParams,
        body: AccountBody,
        response: {
          200: Type.Object({ status: Type.String(), message: Type.String(), platform: Type.String() }),
          ...errors,
        },
      },
    },
    async (request) =>
      deleteInboxReviewReply(ctx, request.principal, request.params.reviewId, request.body as { accountId: string }),
  );
}
