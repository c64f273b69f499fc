import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthSim } from '../oauth.js';
import { hangUp, type SimulatorState } from '../types.js';
import { gbpError, gbpStore, locationFor, sendFault, userFor, type GbpLocation } from './store.js';

/*
 * Reviews of the v4 API. Google publishes no machine-readable contract for v4 (reference/README.md), so
 * this follows the v4 reference pages, field by field:
 * - https://developers.google.com/my-business/reference/rest/v4/accounts.locations.reviews/list:
 *   `GET /v4/accounts/{a}/locations/{l}/reviews?pageSize&pageToken&orderBy`; pageSize at most 50 (default
 *   50); orderBy `updateTime desc` (default), `rating` or `rating desc`; answers `{reviews[], averageRating,
 *   totalReviewCount, nextPageToken}`;
 * - the Review resource (.../accounts.locations.reviews#Review): `name, reviewId, reviewer{profilePhotoUrl,
 *   displayName, isAnonymous}, starRating` (enum STAR_RATING_UNSPECIFIED, ONE..FIVE), `comment, createTime,
 *   updateTime, reviewReply{comment, updateTime}`;
 * - .../updateReply: `PUT .../reviews/{r}/reply` with a ReviewReply `{comment}` (the only writable field;
 *   at most 4096 bytes), answers the ReviewReply; replying again replaces the reply;
 * - .../deleteReply: `DELETE .../reviews/{r}/reply`, an empty answer; 404 when there is no reply.
 * - .../get: `GET .../reviews/{r}`, the Review; 404 for a review of another location;
 * - https://developers.google.com/my-business/reference/rest/v4/accounts.locations/batchGetReviews:
 *   `POST /v4/accounts/{a}/locations:batchGetReviews {locationNames[], pageSize?, pageToken?, orderBy?,
 *   ignoreRatingOnlyReviews?}` answers `{locationReviews[{name (the location), review}], nextPageToken?}`,
 *   every location of the account named in the path (a location of another account is a 403).
 * `POST /_inbound {kind: "review", account, rating (1..5), text?, reviewer?: {name?}}` is a customer
 * reviewing a location; `account` is the location id (or `locations/{id}`, or its title).
 */

export interface GbpReview {
  id: string;
  locationId: string;
  accountId: string;
  reviewer: string;
  rating: number;
  comment: string | null;
  createdAt: number;
  updatedAt: number;
  reply: { comment: string; updatedAt: number } | null;
}

const STARS = ['STAR_RATING_UNSPECIFIED', 'ONE', 'TWO', 'THREE', 'FOUR', 'FIVE'];
const MAX_REPLY_BYTES = 4096;
const ALLOWED_REPLY = new Set(['comment', 'updateTime']);

/** The simulator's reviews by id (a test reads replies here: reviews are not posts, so not in `_inspect`). */
export function reviewsOf(state: SimulatorState): Map<string, GbpReview> {
  let reviews = state.data.get('googlebusiness:reviews') as Map<string, GbpReview> | undefined;
  if (!reviews) {
    reviews = new Map();
    state.data.set('googlebusiness:reviews', reviews);
  }
  return reviews;
}

const replyResource = (r: NonNullable<GbpReview['reply']>) => ({
  comment: r.comment,
  updateTime: new Date(r.updatedAt).toISOString(),
});

function reviewResource(r: GbpReview) {
  return {
    name: `accounts/${r.accountId}/locations/${r.locationId}/reviews/${r.id}`,
    reviewId: r.id,
    reviewer: {
      profilePhotoUrl: `https://lh3.googleusercontent.com/a/${r.id.slice(0, 12)}=s120`,
      displayName: r.reviewer,
      isAnonymous: false,
    },
    starRating: STARS[r.rating],
    ...(r.comment ? { comment: r.comment } : {}),
    createTime: new Date(r.createdAt).toISOString(),
    updateTime: new Date(r.updatedAt).toISOString(),
    ...(r.reply ? { reviewReply: replyResource(r.reply) } : {}),
  };
}

const tokenAt = (offset: number) => Buffer.from(`r:${offset}`).toString('base64url');
function offsetOf(token: string | undefined): number | null {
  if (!token) return 0;
  const m = /^r:(\d+)$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  return m ? Number(m[1]) : null;
}

export function registerReviews(app: FastifyInstance, state: SimulatorState, oauth: OAuthSim, now: () => number): void {
  type Params = { a: string; l: string; r?: string };
  const locationOf = (request: FastifyRequest, reply: FastifyReply): GbpLocation | null => {
    const user = userFor(request, reply, oauth);
    if (!user) return null;
    const { a, l } = request.params as Params;
    return locationFor(state, reply, user, l, a);
  };
  const reviewOf = (request: FastifyRequest, reply: FastifyReply) => {
    const loc = locationOf(request, reply);
    if (!loc) return null;
    const review = reviewsOf(state).get((request.params as Params).r ?? '');
    if (!review || review.locationId !== loc.id) {
      gbpError(reply, 404, 'Requested entity was not found.');
      return null;
    }
    return review;
  };

  app.get('/v4/accounts/:a/locations/:l/reviews', async (request, reply) => {
    const loc = locationOf(request, reply);
    if (!loc) return reply;
    const q = request.query as Record<string, string>;
    const size = q.pageSize === undefined ? 50 : Number(q.pageSize);
    if (!Number.isInteger(size) || size < 1 || size > 50)
      return gbpError(reply, 400, 'Request contains an invalid argument.', 'page_size');
    const orderBy = q.orderBy ?? 'updateTime desc';
    if (!['updateTime desc', 'rating', 'rating desc'].includes(orderBy))
      return gbpError(reply, 400, 'Request contains an invalid argument.', 'order_by');
    const offset = offsetOf(q.pageToken);
    if (offset === null) return gbpError(reply, 400, 'Request contains an invalid argument.', 'page_token');
    const fault = state.faults.take('review');
    if (sendFault(reply, fault)) return reply;
    if (fault === 'ambiguous') return hangUp(reply);
    const all = [...reviewsOf(state).values()].filter((r) => r.locationId === loc.id);
    all.sort(
      (x, y) =>
        (orderBy === 'updateTime desc'
          ? y.updatedAt - x.updatedAt
          : orderBy === 'rating'
            ? x.rating - y.rating
            : y.rating - x.rating) || (x.id < y.id ? -1 : 1),
    );
    const page = all.slice(offset, offset + size);
    const average = all.length ? Math.round((all.reduce((s, r) => s + r.rating, 0) / all.length) * 10) / 10 : 0;
    return {
      ...(page.length ? { reviews: page.map(reviewResource) } : {}),
      averageRating: average,
      totalReviewCount: all.length,
      ...(offset + size < all.length ? { nextPageToken: tokenAt(offset + size) } : {}),
    };
  });

  app.get('/v4/accounts/:a/locations/:l/reviews/:r', async (request, reply) => {
    const review = reviewOf(request, reply);
    if (!review) return reply;
    const fault = state.faults.take('review');
    if (sendFault(reply, fault)) return reply;
    if (fault === 'ambiguous') return hangUp(reply);
    return reviewResource(review);
  });

  registerBatchGet(app, state, oauth);

  app.put('/v4/accounts/:a/locations/:l/reviews/:r/reply', async (request, reply) => {
    const review = reviewOf(request, reply);
    if (!review) return reply;
    const body = request.body as Record<string, unknown> | null;
    if (!body || typeof body !== 'object' || Array.isArray(body))
      return gbpError(reply, 400, 'Invalid JSON payload received. Expected an object.');
    const unknown = Object.keys(body).find((k) => !ALLOWED_REPLY.has(k));
    if (unknown)
      return gbpError(reply, 400, `Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.`);
    if (typeof body.comment !== 'string' || !body.comment.trim())
      return gbpError(reply, 400, 'Request contains an invalid argument.', 'comment');
    if (Buffer.byteLength(body.comment) > MAX_REPLY_BYTES)
      return gbpError(reply, 400, 'Request contains an invalid argument.', 'comment');
    const fault = state.faults.take('review');
    if (sendFault(reply, fault)) return reply;
    review.reply = { comment: body.comment, updatedAt: now() };
    if (fault === 'ambiguous') return hangUp(reply);
    return replyResource(review.reply);
  });

  app.delete('/v4/accounts/:a/locations/:l/reviews/:r/reply', async (request, reply) => {
    const review = reviewOf(request, reply);
    if (!review) return reply;
    if (!review.reply) return gbpError(reply, 404, 'Requested entity was not found.');
    const fault = state.faults.take('review');
    if (sendFault(reply, fault)) return reply;
    review.reply = null;
    if (fault === 'ambiguous') return hangUp(reply);
    return {};
  });

  app.post('/_inbound', async (request, reply) => {
    const b = (request.body ?? {}) as {
      kind?: string;
      account?: string;
      rating?: number;
      text?: string;
      reviewer?: { name?: string };
    };
    if (b.kind !== 'review')
      return reply.status(400).send({
        error: `Google Business has no ${b.kind ?? 'such'} items Herald reads: only kind "review" (a customer's review of a location)`,
      });
    if (!Number.isInteger(b.rating) || b.rating! < 1 || b.rating! > 5)
      return reply.status(400).send({ error: 'rating must be an integer from 1 to 5' });
    const id = String(b.account ?? '').replace(/^locations\//, '');
    const loc =
      gbpStore(state).locations.get(id) ??
      [...gbpStore(state).locations.values()].find((l) => l.resource.title === b.account);
    if (!loc)
      return reply
        .status(400)
        .send({ error: `no location ${b.account ?? ''} (account is the location id, locations/{id} or its title)` });
    const at = now();
    const review: GbpReview = {
      id: `AbFvOq${randomBytes(18).toString('base64url')}`,
      locationId: loc.id,
      accountId: loc.accountId,
      reviewer: b.reviewer?.name ?? 'Sandbox Customer',
      rating: b.rating!,
      comment: b.text ?? null,
      createdAt: at,
      updatedAt: at,
      reply: null,
    };
    reviewsOf(state).set(review.id, review);
    return { ok: true, id: review.id, name: reviewResource(review).name };
  });
}

const BATCH_FIELDS = new Set(['locationNames', 'pageSize', 'pageToken', 'orderBy', 'ignoreRatingOnlyReviews']);
/** Google caps a batch at 200 location names (v4 reference: "limited to a batch size of 200 location_names per call"). */
const MAX_BATCH_LOCATIONS = 200;

function sortReviews(all: GbpReview[], orderBy: string): GbpReview[] {
  return all.sort(
    (x, y) =>
      (orderBy === 'updateTime desc'
        ? y.updatedAt - x.updatedAt
        : orderBy === 'rating'
          ? x.rating - y.rating
          : y.rating - x.rating) || (x.id < y.id ? -1 : 1),
  );
}

/** accounts.locations.batchGetReviews: the reviews of several locations of one account, one flat page. */
function registerBatchGet(app: FastifyInstance, state: SimulatorState, oauth: OAuthSim): void {
  // The route's last segment is `locations:batchGetReviews` (gRPC transcoding's custom verb).
  app.post('/v4/accounts/:a/locations::batchGetReviews', async (request, reply) => {
    const user = userFor(request, reply, oauth);
    if (!user) return reply;
    const { a } = request.params as { a: string };
    const body = request.body as Record<string, unknown> | null;
    if (!body || typeof body !== 'object' || Array.isArray(body))
      return gbpError(reply, 400, 'Invalid JSON payload received. Expected an object.');
    const unknown = Object.keys(body).find((k) => !BATCH_FIELDS.has(k));
    if (unknown)
      return gbpError(reply, 400, `Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.`);
    const names = body.locationNames;
    if (!Array.isArray(names) || !names.length || names.some((n) => typeof n !== 'string'))
      return gbpError(reply, 400, 'Request contains an invalid argument.', 'location_names');
    if (names.length > MAX_BATCH_LOCATIONS)
      return gbpError(reply, 400, 'Request contains an invalid argument.', 'location_names');
    const size = body.pageSize === undefined ? 50 : Number(body.pageSize);
    if (!Number.isInteger(size) || size < 1 || size > 50)
      return gbpError(reply, 400, 'Request contains an invalid argument.', 'page_size');
    const orderBy = typeof body.orderBy === 'string' ? body.orderBy : 'updateTime desc';
    if (!['updateTime desc', 'rating', 'rating desc'].includes(orderBy))
      return gbpError(reply, 400, 'Request contains an invalid argument.', 'order_by');
    const offset = offsetOf(typeof body.pageToken === 'string' ? body.pageToken : undefined);
    if (offset === null) return gbpError(reply, 400, 'Request contains an invalid argument.', 'page_token');
    const ids: string[] = [];
    for (const name of names as string[]) {
      const m = /^accounts\/([0-9]+)\/locations\/([0-9]+)$/.exec(name);
      if (!m)
        return gbpError(
          reply,
          400,
          `Request contains an invalid argument: ${name} is not a location name.`,
          'location_names',
        );
      if (m[1] !== a) return gbpError(reply, 403, 'The caller does not have permission');
      const loc = locationFor(state, reply, user, m[2], a);
      if (!loc) return reply;
      ids.push(loc.id);
    }
    const fault = state.faults.take('review');
    if (sendFault(reply, fault)) return reply;
    if (fault === 'ambiguous') return hangUp(reply);
    const all = sortReviews(
      [...reviewsOf(state).values()].filter(
        (r) => ids.includes(r.locationId) && !(body.ignoreRatingOnlyReviews === true && !r.comment),
      ),
      orderBy,
    );
    const page = all.slice(offset, offset + size);
    return {
      ...(page.length
        ? {
            locationReviews: page.map((r) => ({
              name: `accounts/${r.accountId}/locations/${r.locationId}`,
              review: reviewResource(r),
            })),
          }
        : {}),
      ...(offset + size < all.length ? { nextPageToken: tokenAt(offset + size) } : {}),
    };
  });
}
