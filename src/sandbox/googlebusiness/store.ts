import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FaultKind } from '../faults.js';
import type { OAuthSim, OAuthUser } from '../oauth.js';
import type { SimulatorState } from '../types.js';

/** A location the consenting user manages, with what the v1 and v4 APIs read and write of it. */
export interface GbpLocation {
  /** Numeric id: the location is `locations/<id>` (v1) and `accounts/<a>/locations/<id>` (v4). */
  id: string;
  accountId: string;
  /** The v1 Location resource, without `name` (derived from the id). */
  resource: GbpLocationResource;
  attributes: NamedResource[];
  /** The v4 FoodMenus `menus`. */
  menus: Record<string, unknown>[];
  media: NamedResource[];
  placeActionLinks: NamedResource[];
}

/** The v1 Location fields the simulator reads; the others are kept as written. */
interface GbpLocationResource {
  categories?: { primaryCategory?: { name?: string; displayName?: string } };
  phoneNumbers?: { primaryPhone?: string };
  metadata: { canHaveFoodMenus?: boolean; [key: string]: unknown };
  [key: string]: unknown;
}

/** An attribute, a media item or a place action link: a resource known by its `name`. */
export interface NamedResource {
  name: string;
  [key: string]: unknown;
}

/** A v4 LocalPost as created (checked by checkLocalPost): the fields the simulator reads, the rest kept. */
export interface LocalPostBody {
  topicType: string;
  summary?: string;
  media?: { mediaFormat: string; sourceUrl: string }[];
  /** An EVENT or OFFER post's schedule (the Date and TimeOfDay messages of Google's API). */
  event?: { schedule?: { endDate?: unknown; endTime?: unknown } };
  [key: string]: unknown;
}

export interface GbpPost {
  id: string;
  accountId: string;
  locationId: string;
  body: LocalPostBody;
  createdAt: number;
  /** The post is PROCESSING until then (processingMs), LIVE after. */
  liveAt: number;
  /** The last localPosts.patch (epoch ms). */
  updatedAt?: number;
  deleted: boolean;
}

export interface GbpStore {
  locations: Map<string, GbpLocation>;
  posts: Map<string, GbpPost>;
  seq: number;
}

export function gbpStore(state: SimulatorState): GbpStore {
  let store = state.data.get('googlebusiness') as GbpStore | undefined;
  if (!store) {
    store = { locations: new Map(), posts: new Map(), seq: 0 };
    state.data.set('googlebusiness', store);
  }
  return store;
}

/** Digits derived from a string: stable ids for the same login (docs/sandbox.md). */
export function digits(seed: string, length: number): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return (BigInt(`0x${hex}`) % 10n ** BigInt(length)).toString().padStart(length, '1').replace(/^0/, '1');
}

export const accountIdOf = (user: OAuthUser) => digits(`account:${user.id}`, 21);

/**
 * The user's one personal account and its two locations (docs/sandbox.md: two Google Business locations), created
 * on first sight with ids stable for the same login. The first can have food menus (a restaurant), the
 * second cannot (a shop), as `metadata.canHaveFoodMenus` says.
 */
export function locationsOf(state: SimulatorState, user: OAuthUser): GbpLocation[] {
  const store = gbpStore(state);
  const accountId = accountIdOf(user);
  return [0, 1].map((i) => {
    const id = digits(`location:${user.id}:${i}`, 19);
    let loc = store.locations.get(id);
    if (!loc) {
      const restaurant = i === 0;
      loc = {
        id,
        accountId,
        resource: {
          title: restaurant ? `${user.name} Cafe` : `${user.name} Shop`,
          languageCode: 'en',
          storeCode: `STORE-${i + 1}`,
          phoneNumbers: { primaryPhone: `+1 415-555-01${String(10 + i)}` },
          categories: {
            primaryCategory: restaurant
              ? { name: 'categories/gcid:cafe', displayName: 'Cafe' }
              : { name: 'categories/gcid:gift_shop', displayName: 'Gift shop' },
          },
          storefrontAddress: {
            regionCode: 'US',
            languageCode: 'en',
            postalCode: '94103',
            administrativeArea: 'CA',
            locality: 'San Francisco',
            addressLines: [`${100 + i} Market St`],
          },
          websiteUri: `https://${restaurant ? 'cafe' : 'shop'}.example.com/`,
          regularHours: {
            periods: [{ openDay: 'MONDAY', openTime: { hours: 8 }, closeDay: 'MONDAY', closeTime: { hours: 18 } }],
          },
          profile: { description: restaurant ? 'Coffee and pastries.' : 'Gifts and cards.' },
          metadata: {
            canOperateLocalPost: true,
            canHaveFoodMenus: restaurant,
            canDelete: true,
            placeId: `ChIJ${digits(`place:${id}`, 12)}`,
            mapsUri: `https://maps.google.com/maps?cid=${id}`,
            newReviewUri: `https://search.google.com/local/writereview?placeid=ChIJ${digits(`place:${id}`, 12)}`,
          },
        },
        attributes: [{ name: 'attributes/has_wheelchair_accessible_entrance', valueType: 'BOOL', values: [true] }],
        menus: [],
        media: [],
        placeActionLinks: [],
      };
      store.locations.set(id, loc);
    }
    return loc;
  });
}

const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/**
 * Google's error shape of these APIs: `{error: {code, message, status, details?}}` (google.rpc.Status).
 * A v4 validation error names the field in `details[].errorDetails[]` (google.mybusiness.v4.ValidationError,
 * https://developers.google.com/my-business/reference/rest/v4/ErrorCode).
 */
export function gbpError(reply: FastifyReply, code: number, message: string, field?: string): FastifyReply {
  const details = field
    ? [
        {
          '@type': 'type.googleapis.com/google.mybusiness.v4.ValidationError',
          errorDetails: [{ code: 3, field, message }],
        },
      ]
    : undefined;
  return reply
    .status(code)
    .send({ error: { code, message, status: STATUS[code] ?? 'UNKNOWN', ...(details ? { details } : {}) } });
}

/** The user behind the bearer token, or a 401 answered. */
export function userFor(request: FastifyRequest, reply: FastifyReply, oauth: OAuthSim): OAuthUser | null {
  const user = oauth.userFor(request.headers.authorization);
  if (user) return user;
  gbpError(
    reply,
    401,
    'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
  );
  return null;
}

/** The location `id` when `user` manages it (and under `accountId` when given); otherwise 404 or 403 answered. */
export function locationFor(
  state: SimulatorState,
  reply: FastifyReply,
  user: OAuthUser,
  id: string,
  accountId?: string,
): GbpLocation | null {
  const mine = locationsOf(state, user);
  const loc = gbpStore(state).locations.get(id);
  if (!loc) {
    gbpError(reply, 404, 'Requested entity was not found.');
    return null;
  }
  if (!mine.includes(loc) || (accountId !== undefined && accountId !== loc.accountId)) {
    gbpError(reply, 403, 'The caller does not have permission');
    return null;
  }
  return loc;
}

/** Answers an injected fault as Google does; false for none or `ambiguous` (the caller acts, then hangs up). */
export function sendFault(reply: FastifyReply, fault: FaultKind | null): boolean {
  if (fault === 'rate_limited')
    gbpError(
      reply,
      429,
      "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute' of service 'mybusiness.googleapis.com'.",
    );
  else if (fault === 'unavailable') gbpError(reply, 503, 'The service is currently unavailable.');
  else if (fault === 'auth') gbpError(reply, 401, 'Request had invalid authentication credentials.');
  else if (fault === 'rejected') gbpError(reply, 400, 'Request contains an invalid argument.');
  else return false;
  return true;
}

/** A field mask (`title,profile.description`) as its paths. */
export const maskPaths = (mask: unknown) =>
  String(mask ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);

/** `source` restricted to the top-level fields of `mask` (a read mask). */
export function pick(source: Record<string, unknown>, mask: string[]): Record<string, unknown> {
  const tops = new Set(mask.map((p) => p.split('.')[0]));
  return Object.fromEntries(Object.entries(source).filter(([k]) => tops.has(k)));
}
