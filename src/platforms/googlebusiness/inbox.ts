import {
  PlatformError,
  type AccountCredentials,
  type InboundReview,
  type InboxCapability,
  type PlatformIO,
} from '../types.js';
import { bareLocationId, gbpRequest, token, type GoogleBusinessOptions } from './api.js';

/** Pages of 50 reviews one poll reads at most. */
const MAX_PAGES = 20;

/** starRating (v4 enum) as 1..5; STAR_RATING_UNSPECIFIED as no rating. */
export const STARS: Record<string, number> = { ONE: 1, TWO: 2, THREE: 3, FOUR: 4, FIVE: 5 };

export interface ReviewJson {
  name: string;
  reviewId?: string;
  reviewer?: { displayName?: string; profilePhotoUrl?: string; isAnonymous?: boolean };
  starRating?: string;
  comment?: string;
  createTime?: string;
  updateTime?: string;
  reviewReply?: { comment?: string; updateTime?: string };
}

/** One page of v4 reviews.list: the reviews, the location's average and count, the next page's token. */
export interface ReviewsPage {
  reviews: ReviewJson[];
  averageRating: number | null;
  totalReviewCount: number | null;
  nextPageToken: string | null;
}

/**
 * `GET /v4/{location}/reviews` (`location` = `accounts/{a}/locations/{l}`): one page, at most 50.
 * Shared by the poll below and GET /v1/accounts/{id}/gmb-reviews (review-tools.ts).
 */
export async function readReviewsPage(
  opts: GoogleBusinessOptions,
  io: PlatformIO,
  accessToken: string,
  location: string,
  page: { pageSize?: number; pageToken?: string | null; orderBy?: string },
): Promise<ReviewsPage> {
  const q = new URLSearchParams({
    pageSize: String(page.pageSize ?? 50),
    ...(page.orderBy ? { orderBy: page.orderBy } : {}),
    ...(page.pageToken ? { pageToken: page.pageToken } : {}),
  });
  const res = await gbpRequest(io, {
    method: 'GET',
    url: `${opts.apiUrl}/v4/${location}/reviews?${q}`,
    token: accessToken,
  });
  const b = res.body ?? {};
  return {
    reviews: (b.reviews ?? []) as ReviewJson[],
    averageRating: typeof b.averageRating === 'number' ? b.averageRating : null,
    totalReviewCount: typeof b.totalReviewCount === 'number' ? b.totalReviewCount : null,
    nextPageToken: typeof b.nextPageToken === 'string' && b.nextPageToken ? b.nextPageToken : null,
  };
}

/** `accounts/{a}/locations/{l}` of the account's selected location. */
function locationPath(account: AccountCredentials): string {
  const a = String(account.metadata.googleAccountId ?? '').replace(/^accounts\//, '');
  const l = bareLocationId(String(account.metadata.locationId ?? ''));
  if (!a || !l)
    throw new PlatformError(
      'rejected',
      'the Google Business account has no location selected: choose one with PUT /v1/accounts/{id}/gmb-locations',
      { platformCode: 'location_required' },
    );
  return `accounts/${a}/locations/${l}`;
}

/**
 * Reviews of the account's location through the v4 API, polled (Google Business pushes nothing Herald
 * subscribes to): https://developers.google.com/my-business/reference/rest/v4/accounts.locations.reviews
 * - sync: `reviews.list?orderBy=updateTime desc`, 50 a page with pageToken, until a review not updated
 *   since the last poll (the first poll reads them all, up to 1,000: the summary covers the location's
 *   history). starRating ONE..FIVE is 1..5; an existing reply (`reviewReply`) comes along, and a reply
 *   changed on Google since is taken as Google has it;
 * - reply: `PUT .../reviews/{r}/reply {comment}` (updateReply: a second reply replaces the first);
 * - delete reply: `DELETE .../reviews/{r}/reply`.
 */
export function googleBusinessInbox(opts: GoogleBusinessOptions): InboxCapability {
  const v4 = `${opts.apiUrl}/v4`;
  const reviewName = (account: AccountCredentials, reviewId: string, extra: Record<string, unknown>) =>
    typeof extra.name === 'string' && extra.name ? extra.name : `${locationPath(account)}/reviews/${reviewId}`;

  function toInbound(r: ReviewJson): InboundReview {
    const id = r.reviewId ?? r.name.split('/').pop()!;
    return {
      reviewId: id,
      reviewer: {
        id: null,
        name: r.reviewer?.isAnonymous ? null : (r.reviewer?.displayName ?? null),
        picture: r.reviewer?.profilePhotoUrl ?? null,
      },
      rating: STARS[r.starRating ?? ''] ?? null,
      text: r.comment ?? null,
      createdAt: new Date(r.createTime ?? Date.now()),
      reply: r.reviewReply?.comment
        ? {
            id: `${r.name}/reply`,
            text: r.reviewReply.comment,
            createdAt: new Date(r.reviewReply.updateTime ?? r.updateTime ?? Date.now()),
          }
        : null,
      extra: { name: r.name },
    };
  }

  return {
    reviews: {
      async reply(account, req, io) {
        const name = reviewName(account, req.reviewId, req.extra);
        await gbpRequest(io, {
          method: 'PUT',
          url: `${v4}/${name}/reply`,
          token: token(account),
          json: { comment: req.text },
        });
        return { replyId: `${name}/reply` };
      },
      async deleteReply(account, req, io) {
        await gbpRequest(io, {
          method: 'DELETE',
          url: `${v4}/${reviewName(account, req.reviewId, req.extra)}/reply`,
          token: token(account),
        });
      },
    },

    async sync(account, cursor, io) {
      const path = locationPath(account);
      const since = typeof cursor?.since === 'string' ? cursor.since : null;
      const reviews: InboundReview[] = [];
      let newest = since;
      let pageToken: string | null = null;
      for (let pages = 0; pages < MAX_PAGES; pages++) {
        const res = await readReviewsPage(opts, io, token(account), path, {
          pageSize: 50,
          orderBy: 'updateTime desc',
          pageToken,
        });
        let older = false;
        for (const r of res.reviews) {
          const updated = [r.updateTime ?? '', r.reviewReply?.updateTime ?? ''].reduce((a, b) => (b > a ? b : a));
          if (since && updated < since) {
            older = true;
            break;
          }
          if (!newest || updated > newest) newest = updated;
          reviews.push(toInbound(r));
        }
        pageToken = res.nextPageToken;
        if (older || !pageToken) break;
      }
      return { reviews, cursor: newest ? { since: newest } : undefined };
    },
  };
}
