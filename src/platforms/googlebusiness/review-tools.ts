import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { platformTool } from '../tools.js';
import { token } from './api.js';
import type { GoogleBusinessAdapter } from './index.js';
import { readReviewsPage, STARS, type ReviewJson } from './inbox.js';

/*
 * GET /v1/accounts/{accountId}/gmb-reviews (late-openapi-1.0.1.yaml getGoogleBusinessReviews): one page of
 * the location's reviews read live from Google (v4 reviews.list, through the same reader as the inbox
 * poll), with Google's own paging (`pageSize` at most 50, `pageToken`). Unlike /v1/inbox/reviews it needs
 * no inbox add-on and stores nothing: it is the location tool of the hosted API.
 */

const Opt = <T extends TSchema>(s: T) => Type.Optional(s);
const Str = Type.String();
const Time = Type.String({ format: 'date-time' });

export const Review = Type.Object({
  id: Str,
  name: Str,
  reviewer: Type.Object({
    displayName: Str,
    profilePhotoUrl: Type.Union([Str, Type.Null()]),
    isAnonymous: Type.Boolean(),
  }),
  rating: Opt(Type.Integer({ minimum: 1, maximum: 5 })),
  starRating: Opt(Str),
  comment: Opt(Str),
  createTime: Opt(Time),
  updateTime: Opt(Time),
  reviewReply: Type.Union([Type.Object({ comment: Str, updateTime: Opt(Time) }), Type.Null()]),
});

/** A v4 Review as the hosted API shows it (the entries of gmb-reviews, and gmb-reviews/{reviewId}). */
export function presentReview(r: ReviewJson): Static<typeof Review> {
  const rating = STARS[r.starRating ?? ''];
  const anonymous = r.reviewer?.isAnonymous === true;
  return {
    id: r.reviewId ?? r.name.split('/').pop()!,
    name: r.name,
    reviewer: {
      displayName: r.reviewer?.displayName ?? (anonymous ? 'Anonymous' : ''),
      profilePhotoUrl: r.reviewer?.profilePhotoUrl ?? null,
      isAnonymous: anonymous,
    },
    ...(rating ? { rating, starRating: r.starRating } : {}),
    ...(r.comment !== undefined ? { comment: r.comment } : {}),
    ...(r.createTime ? { createTime: r.createTime } : {}),
    ...(r.updateTime ? { updateTime: r.updateTime } : {}),
    reviewReply:
      r.reviewReply?.comment !== undefined
        ? {
            comment: r.reviewReply.comment,
            ...(r.reviewReply.updateTime ? { updateTime: r.reviewReply.updateTime } : {}),
          }
        : null,
  };
}

const getReviews = platformTool<GoogleBusinessAdapter>()({
  method: 'GET',
  path: 'gmb-reviews',
  tags: ['GMB Reviews'],
  summary: 'Get reviews',
  querystring: Type.Object({
    pageSize: Opt(Type.Integer({ minimum: 1, maximum: 50, default: 50 })),
    pageToken: Opt(Type.String({ minLength: 1, maxLength: 2000 })),
    locationId: Opt(Type.String({ pattern: '^(locations/)?[0-9]+$', maxLength: 40 })),
  }),
  response: Type.Object({
    success: Type.Boolean(),
    accountId: Str,
    locationId: Str,
    reviews: Type.Array(Review),
    averageRating: Type.Number(),
    totalReviewCount: Type.Integer(),
    nextPageToken: Type.Union([Str, Type.Null()]),
  }),
  async handler({ adapter, account, query, io }) {
    const where = await adapter.resolveLocation(account!, query.locationId, io);
    const page = await readReviewsPage(adapter.options, io, token(account!), where.v4, {
      pageSize: query.pageSize ?? 50,
      pageToken: query.pageToken,
    });
    const reviews = page.reviews.map(presentReview);
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        locationId: where.locationId,
        reviews,
        averageRating: page.averageRating ?? 0,
        totalReviewCount: page.totalReviewCount ?? 0,
        nextPageToken: page.nextPageToken,
      },
    };
  },
});

export const REVIEW_TOOLS = [getReviews];
