import type { FastifyInstance } from 'fastify';
import type { OAuthSim } from '../oauth.js';
import type { SimulatorState } from '../types.js';
import { BUSINESS_INFORMATION } from './discovery.js';
import { checkPlaceActionLink } from './rules.js';
import { gbpError, locationFor, maskPaths, userFor } from './store.js';

/*
 * attributes.list of the Business Information API v1 (held to its discovery document) and
 * placeActionLinks.patch of the Place Actions API v1.
 * - https://developers.google.com/my-business/reference/businessinformation/rest/v1/attributes/list:
 *   `GET /v1/attributes` with `parent` (a location: then "category_name, region_code, language_code and
 *   show_all are not required and must not be set"), or `categoryName` (`categories/{id}`) with
 *   `regionCode`, or `showAll` with `regionCode` and `languageCode`; `pageSize` ("Default is 200, minimum
 *   is 1") and `pageToken`. Display names are in English (Google's fallback for any language it lacks).
 * - https://developers.google.com/my-business/reference/placeactions/rest/v1/locations.placeActionLinks/patch:
 *   `PATCH /v1/locations/{l}/placeActionLinks/{id}?updateMask=` (required; `uri`, `placeActionType`,
 *   `isPreferred`), the body a PlaceActionLink; a link the provider does not let the merchant edit is a
 *   403, the same uri and type as another link of the location a 409.
 */

type Meta = {
  parent: string;
  valueType: string;
  displayName: string;
  groupDisplayName: string;
  repeatable?: boolean;
  valueMetadata?: { value: unknown; displayName: string }[];
};

const bool = (id: string, displayName: string, group: string): Meta => ({
  parent: `attributes/${id}`,
  valueType: 'BOOL',
  displayName,
  groupDisplayName: group,
  valueMetadata: [
    { value: true, displayName },
    { value: false, displayName: `No ${displayName.toLowerCase()}` },
  ],
});

const COMMON: Meta[] = [
  bool('has_wheelchair_accessible_entrance', 'Wheelchair accessible entrance', 'Accessibility'),
  {
    parent: 'attributes/pay_credit_card_types_accepted',
    valueType: 'REPEATED_ENUM',
    displayName: 'Credit cards',
    groupDisplayName: 'Payments',
    repeatable: true,
    valueMetadata: ['american_express', 'mastercard', 'visa'].map((v) => ({
      value: v,
      displayName: v.replace('_', ' '),
    })),
  },
  {
    parent: 'attributes/url_appointment',
    valueType: 'URL',
    displayName: 'Appointment links',
    groupDisplayName: 'Place page URLs',
  },
];
/** What each category of the simulated locations offers (gcid ids as Google names them). */
const BY_CATEGORY: Record<string, Meta[]> = {
  'categories/gcid:cafe': [
    ...COMMON,
    bool('has_delivery', 'Delivery', 'Service options'),
    bool('has_takeout', 'Takeout', 'Service options'),
    {
      parent: 'attributes/wi_fi',
      valueType: 'ENUM',
      displayName: 'Wi-Fi',
      groupDisplayName: 'Amenities',
      valueMetadata: [
        { value: 'free_wi_fi', displayName: 'Free' },
        { value: 'paid_wi_fi', displayName: 'Paid' },
      ],
    },
    { parent: 'attributes/url_menu', valueType: 'URL', displayName: 'Menu link', groupDisplayName: 'Place page URLs' },
  ],
  'categories/gcid:gift_shop': [
    ...COMMON,
    bool('has_in_store_pickup', 'In-store pickup', 'Service options'),
    bool('has_delivery', 'Delivery', 'Service options'),
  ],
};
const REGIONS = /^[A-Z]{2}$/;

const tokenAt = (offset: number) => Buffer.from(`am:${offset}`).toString('base64url');
function offsetOf(token: string | undefined): number | null {
  if (!token) return 0;
  const m = /^am:(\d+)$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  return m ? Number(m[1]) : null;
}

export function registerAttributeMetadata(
  app: FastifyInstance,
  state: SimulatorState,
  oauth: OAuthSim,
  now: () => number,
): void {
  app.get('/v1/attributes', async (request, reply) => {
    const user = userFor(request, reply, oauth);
    if (!user) return reply;
    const q = request.query as Record<string, string>;
    const size = q.pageSize === undefined ? 200 : Number(q.pageSize);
    if (!Number.isInteger(size) || size < 1)
      return gbpError(reply, 400, 'Request contains an invalid argument.', 'page_size');
    const offset = offsetOf(q.pageToken);
    if (offset === null) return gbpError(reply, 400, 'Request contains an invalid argument.', 'page_token');
    let all: Meta[];
    if (q.parent) {
      const extra = ['categoryName', 'regionCode', 'languageCode', 'showAll'].find((k) => q[k] !== undefined);
      if (extra)
        return gbpError(
          reply,
          400,
          `Request contains an invalid argument: ${extra} must not be set with parent.`,
          extra,
        );
      const m = /^locations\/([0-9]+)$/.exec(q.parent);
      if (!m)
        return gbpError(
          reply,
          400,
          'Request contains an invalid argument: parent must be locations/{location_id}.',
          'parent',
        );
      const loc = locationFor(state, reply, user, m[1]);
      if (!loc) return reply;
      all = BY_CATEGORY[String(loc.resource.categories?.primaryCategory?.name)] ?? COMMON;
    } else if (q.showAll === 'true') {
      if (!q.regionCode || !q.languageCode)
        return gbpError(
          reply,
          400,
          'Request contains an invalid argument: region_code and language_code are required with show_all.',
          'region_code',
        );
      all = [
        ...new Map(
          Object.values(BY_CATEGORY)
            .flat()
            .map((a) => [a.parent, a]),
        ).values(),
      ];
    } else {
      if (!q.categoryName || !/^categories\/[^/]+$/.test(q.categoryName))
        return gbpError(
          reply,
          400,
          'Request contains an invalid argument: category_name must be categories/{category_id}.',
          'category_name',
        );
      if (!q.regionCode || !REGIONS.test(q.regionCode))
        return gbpError(reply, 400, 'Request contains an invalid argument: region_code is required.', 'region_code');
      const found = BY_CATEGORY[q.categoryName];
      if (!found) return gbpError(reply, 404, 'Requested entity was not found.');
      all = found;
    }
    const page = all.slice(offset, offset + size);
    return BUSINESS_INFORMATION.checked(
      'ListAttributeMetadataResponse',
      { attributeMetadata: page, ...(offset + size < all.length ? { nextPageToken: tokenAt(offset + size) } : {}) },
      'Google Business',
    );
  });

  app.patch('/v1/locations/:l/placeActionLinks/:id', async (request, reply) => {
    const user = userFor(request, reply, oauth);
    if (!user) return reply;
    const { l, id } = request.params as { l: string; id: string };
    const loc = locationFor(state, reply, user, l);
    if (!loc) return reply;
    const mask = maskPaths((request.query as Record<string, string>).updateMask);
    if (!mask.length)
      return gbpError(reply, 400, 'Request contains an invalid argument: update_mask is required.', 'update_mask');
    const bad = mask.find((p) => !['uri', 'placeActionType', 'isPreferred'].includes(p));
    if (bad) return gbpError(reply, 400, `Invalid field mask path: ${bad}`, 'update_mask');
    const link = loc.placeActionLinks.find((p) => p.name === `locations/${loc.id}/placeActionLinks/${id}`);
    if (!link) return gbpError(reply, 404, 'Requested entity was not found.');
    if (!link.isEditable) return gbpError(reply, 403, 'The place action link is not editable.');
    const body = request.body as Record<string, unknown> | null;
    if (!body || typeof body !== 'object' || Array.isArray(body))
      return gbpError(reply, 400, 'Invalid JSON payload received. Expected an object.');
    const next = { ...link, ...Object.fromEntries(mask.map((k) => [k, body[k]])) };
    // Fields outside the mask are ignored, but an unknown name is still refused.
    const problem = checkPlaceActionLink({ ...body, ...next });
    if (problem) return gbpError(reply, 400, problem.message, problem.field);
    if (
      loc.placeActionLinks.some((p) => p !== link && p.uri === next.uri && p.placeActionType === next.placeActionType)
    )
      return gbpError(reply, 409, 'Requested entity already exists');
    Object.assign(link, next, { updateTime: new Date(now()).toISOString() });
    return link;
  });
}
