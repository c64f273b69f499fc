import { Type, type TSchema } from '@sinclair/typebox';
import { platformTool } from '../tools.js';
import { PlatformError } from '../types.js';
import { gbpRequest, token } from './api.js';
import type { GoogleBusinessAdapter } from './index.js';
import type { ReviewJson } from './inbox.js';
import { presentReview, Review } from './review-tools.js';

/*
 * One review by id, its owner reply, and reviews of several locations at once (@zernio/node 0.2.881
 * getGoogleBusinessReview, replyToGoogleBusinessReview, deleteGoogleBusinessReviewReply,
 * batchGetGoogleBusinessReviews), on Google's v4 reviews API:
 * https://developers.google.com/my-business/reference/rest/v4/accounts.locations.reviews
 * - get: `GET /v4/accounts/{a}/locations/{l}/reviews/{r}`; a review of another location is Google's 404;
 * - reply: `PUT .../reviews/{r}/reply {comment}` (updateReply): a second reply replaces the first, and
 *   Google keeps no history; the comment is at most 4,096 bytes;
 * - delete reply: `DELETE .../reviews/{r}/reply`;
 * - batch: `POST /v4/accounts/{a}/locations:batchGetReviews` (accounts.locations/batchGetReviews), every
 *   location named `accounts/{a}/locations/{l}` of one Google account (the path names it).
 * Reply and delete act on the account's selected location, as the hosted API documents.
 */

const Opt = <T extends TSchema>(s: T) => Type.Optional(s);
const Str = Type.String();
const LocationId = Opt(Type.String({ pattern: '^(locations/)?[0-9]+$', maxLength: 40 }));
const MAX_REPLY_BYTES = 4096;
const tool = platformTool<GoogleBusinessAdapter>();

const reviewUrl = (adapter: GoogleBusinessAdapter, v4: string, reviewId: string) =>
  `${adapter.options.apiUrl}/v4/${v4}/reviews/${encodeURIComponent(reviewId)}`;

/** GET gmb-reviews/{reviewId}: reviews.get on the selected location or `?locationId`. */
const getReview = tool({
  method: 'GET',
  path: 'gmb-reviews/:reviewId',
  tags: ['GMB Reviews'],
  summary: 'Get a review',
  querystring: Type.Object({ locationId: LocationId }),
  response: Type.Object({ success: Type.Boolean(), accountId: Str, locationId: Str, review: Review }),
  async handler({ adapter, account, query, params, io }) {
    const reviewId = checkedReviewId(params.reviewId);
    const where = await adapter.resolveLocation(account!, query.locationId, io);
    const res = await gbpRequest(io, {
      method: 'GET',
      url: reviewUrl(adapter, where.v4, reviewId),
      token: token(account!),
    });
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        locationId: where.locationId,
        review: presentReview(res.body as ReviewJson),
      },
    };
  },
});

/** POST gmb-reviews/{reviewId}/reply: updateReply on the selected location (replaces any reply). */
const replyToReview = tool({
  method: 'POST',
  path: 'gmb-reviews/:reviewId/reply',
  tags: ['GMB Reviews'],
  summary: 'Reply to a review',
  body: Type.Object({ comment: Type.String({ minLength: 1, maxLength: MAX_REPLY_BYTES }) }),
  response: Type.Object({ success: Type.Boolean(), reviewId: Str, platform: Str }),
  async handler({ adapter, account, body, params, io }) {
    const reviewId = checkedReviewId(params.reviewId);
    if (!body.comment.trim())
      throw new PlatformError('rejected', 'the reply comment must not be blank', { platformCode: 'comment' });
    if (Buffer.byteLength(body.comment) > MAX_REPLY_BYTES)
      throw new PlatformError('rejected', `a review reply is at most ${MAX_REPLY_BYTES} bytes`, {
        platformCode: 'comment',
      });
    const where = await adapter.resolveLocation(account!, null, io);
    await gbpRequest(io, {
      method: 'PUT',
      url: `${reviewUrl(adapter, where.v4, reviewId)}/reply`,
      token: token(account!),
      json: { comment: body.comment },
    });
    return { body: { success: true, reviewId, platform: 'googlebusiness' } };
  },
});

/** DELETE gmb-reviews/{reviewId}/reply: deleteReply on the selected location (the review stays). */
const deleteReviewReply = tool({
  method: 'DELETE',
  path: 'gmb-reviews/:reviewId/reply',
  tags: ['GMB Reviews'],
  summary: 'Delete a review reply',
  response: Type.Object({ success: Type.Boolean(), message: Str, platform: Str }),
  async handler({ adapter, account, params, io }) {
    const reviewId = checkedReviewId(params.reviewId);
    const where = await adapter.resolveLocation(account!, null, io);
    await gbpRequest(io, {
      method: 'DELETE',
      url: `${reviewUrl(adapter, where.v4, reviewId)}/reply`,
      token: token(account!),
    });
    return { body: { success: true, message: 'Reply deleted', platform: 'googlebusiness' } };
  },
});

const LOCATION_NAME = '^accounts/[0-9]+/locations/[0-9]+$';

/** POST gmb-reviews/batch: batchGetReviews over up to 50 locations of one Google account; reads only. */
const batchGetReviews = tool({
  method: 'POST',
  path: 'gmb-reviews/batch',
  write: false,
  tags: ['GMB Reviews'],
  summary: 'Batch get reviews',
  body: Type.Object({
    locationNames: Type.Array(Type.String({ pattern: LOCATION_NAME, maxLength: 80 }), { minItems: 1, maxItems: 50 }),
    pageSize: Opt(Type.Integer({ minimum: 1, maximum: 50 })),
    pageToken: Opt(Type.String({ minLength: 1, maxLength: 2000 })),
    orderBy: Opt(Type.Union([Type.Literal('updateTime desc'), Type.Literal('rating'), Type.Literal('rating desc')])),
  }),
  response: Type.Object({
    success: Type.Boolean(),
    accountId: Str,
    locationReviews: Type.Array(Type.Object({ name: Str, review: Type.Record(Type.String(), Type.Unknown()) })),
    nextPageToken: Opt(Str),
  }),
  async handler({ adapter, account, body, io }) {
    const owners = new Set(body.locationNames.map((n) => n.split('/locations/')[0]));
    if (owners.size > 1) {
      throw new PlatformError(
        'rejected',
        `locationNames must all belong to one Google account (got ${[...owners].join(', ')}): send one batch per account`,
        { platformCode: 'location_names' },
      );
    }
    const [owner] = owners;
    const res = await gbpRequest(io, {
      method: 'POST',
      url: `${adapter.options.apiUrl}/v4/${owner}/locations:batchGetReviews`,
      token: token(account!),
      json: {
        locationNames: body.locationNames,
        pageSize: body.pageSize ?? 50,
        orderBy: body.orderBy ?? 'updateTime desc',
        ...(body.pageToken ? { pageToken: body.pageToken } : {}),
      },
    });
    const items = (res.body?.locationReviews ?? []) as { name: string; review: ReviewJson }[];
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        // Google's review object as it is (reviewId, name, starRating, reviewer, reviewReply...), as the hosted API passes it on.
        locationReviews: items.map((i) => ({
          name: String(i.name),
          review: { ...i.review } as Record<string, unknown>,
        })),
        ...(typeof res.body?.nextPageToken === 'string' && res.body.nextPageToken
          ? { nextPageToken: res.body.nextPageToken }
          : {}),
      },
    };
  },
});

function checkedReviewId(id: string | undefined): string {
  if (!id || !/^[A-Za-z0-9_-]{1,64}$/.test(id))
    throw new PlatformError(
      'rejected',
      'reviewId is the review id portion (letters, digits, - and _), not the full resource name',
      { platformCode: 'review_id' },
    );
  return id;
}

export const REVIEW_ID_TOOLS = [batchGetReviews, getReview, replyToReview, deleteReviewReply];
