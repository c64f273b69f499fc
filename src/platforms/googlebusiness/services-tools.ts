import { Type, type TSchema } from '@sinclair/typebox';
import { invalidFields } from '../../errors.js';
import { platformTool } from '../tools.js';
import { gbpRequest, token } from './api.js';
import type { GoogleBusinessAdapter } from './index.js';

/*
 * gmb-services, gmb-attribute-metadata and PATCH gmb-place-actions (@zernio/node 0.2.881
 * getGoogleBusinessServices, updateGoogleBusinessServices, getGmbAttributeMetadata,
 * updateGoogleBusinessPlaceAction):
 * - services are the Location's `serviceItems` of the Business Information API v1: read with
 *   `locations.get?readMask=serviceItems`, replaced whole with `locations.patch?updateMask=serviceItems`
 *   (https://developers.google.com/my-business/reference/businessinformation/rest/v1/locations#ServiceItem);
 * - attribute metadata is `attributes.list` (GET /v1/attributes) by `parent` (a location) or by
 *   `categoryName` and `regionCode` (.../businessinformation/rest/v1/attributes/list);
 * - a place action link is updated with `placeActionLinks.patch?updateMask=` naming the fields sent
 *   (https://developers.google.com/my-business/reference/placeactions/rest/v1/locations.placeActionLinks/patch).
 */

const Opt = <T extends TSchema>(s: T) => Type.Optional(s);
const Str = Type.String();
const LocationId = Opt(Type.String({ pattern: '^(locations/)?[0-9]+$', maxLength: 40 }));
const tool = platformTool<GoogleBusinessAdapter>();

const Money = Type.Object({
  currencyCode: Opt(Type.String({ pattern: '^[A-Z]{3}$' })),
  units: Opt(Type.String({ pattern: '^-?[0-9]{1,18}$' })),
  nanos: Opt(Type.Integer({ minimum: -999_999_999, maximum: 999_999_999 })),
});
const ServiceOut = Type.Object({
  structuredServiceItem: Opt(Type.Object({ serviceTypeId: Opt(Str), description: Opt(Str) })),
  freeFormServiceItem: Opt(
    Type.Object({
      category: Opt(Str),
      label: Opt(Type.Object({ displayName: Opt(Str), description: Opt(Str), languageCode: Opt(Str) })),
    }),
  ),
  price: Opt(Money),
});
/** Google's limits: a structured description is at most 300 characters; labels "140 characters or less" (name), 250 (description). */
const ServiceIn = Type.Object(
  {
    structuredServiceItem: Opt(
      Type.Object(
        {
          serviceTypeId: Type.String({ minLength: 1, maxLength: 200 }),
          description: Opt(Type.String({ maxLength: 300 })),
        },
        { additionalProperties: false },
      ),
    ),
    freeFormServiceItem: Opt(
      Type.Object(
        {
          category: Type.String({ minLength: 1, maxLength: 200 }),
          label: Type.Object(
            {
              displayName: Type.String({ minLength: 1, maxLength: 140 }),
              description: Opt(Type.String({ maxLength: 250 })),
              languageCode: Opt(Type.String({ maxLength: 35 })),
            },
            { additionalProperties: false },
          ),
        },
        { additionalProperties: false },
      ),
    ),
    price: Opt(Money),
  },
  { additionalProperties: false },
);

const servicesOf = (loc: { serviceItems?: unknown } | null | undefined) =>
  Array.isArray(loc?.serviceItems) ? loc.serviceItems : [];

/** GET gmb-services: the location's serviceItems. */
const getServices = tool({
  method: 'GET',
  path: 'gmb-services',
  tags: ['GMB Services'],
  summary: 'Get services',
  querystring: Type.Object({ locationId: LocationId }),
  response: Type.Object({ success: Type.Boolean(), accountId: Str, locationId: Str, services: Type.Array(ServiceOut) }),
  async handler({ adapter, account, query, io }) {
    const where = await adapter.resolveLocation(account!, query.locationId, io);
    const res = await gbpRequest(io, {
      method: 'GET',
      url: `${adapter.options.infoUrl}/v1/${where.v1}?readMask=serviceItems`,
      token: token(account!),
    });
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        locationId: where.locationId,
        services: servicesOf(res.body),
      },
    };
  },
});

/** PUT gmb-services: replaces the whole list (Google updates serviceItems only as a whole). */
const putServices = tool({
  method: 'PUT',
  path: 'gmb-services',
  tags: ['GMB Services'],
  summary: 'Replace services',
  querystring: Type.Object({ locationId: LocationId }),
  body: Type.Object({ serviceItems: Type.Array(ServiceIn, { maxItems: 500 }) }),
  response: Type.Object({ success: Type.Boolean(), services: Type.Array(ServiceOut) }),
  async handler({ adapter, account, query, body, io }) {
    const wrong = body.serviceItems.flatMap((s, i) =>
      Boolean(s.structuredServiceItem) === Boolean(s.freeFormServiceItem) ? [`serviceItems.${i}`] : [],
    );
    if (wrong.length) {
      throw invalidFields(
        'Each service item needs exactly one of structuredServiceItem or freeFormServiceItem',
        Object.fromEntries(
          wrong.map((f) => [f, ['must have exactly one of structuredServiceItem or freeFormServiceItem']]),
        ),
      );
    }
    const where = await adapter.resolveLocation(account!, query.locationId, io);
    const res = await gbpRequest(io, {
      method: 'PATCH',
      url: `${adapter.options.infoUrl}/v1/${where.v1}?updateMask=serviceItems`,
      token: token(account!),
      json: { serviceItems: body.serviceItems },
    });
    return { body: { success: true, services: servicesOf(res.body) } };
  },
});

const AttributeMetadata = Type.Object({
  parent: Opt(Str),
  valueType: Opt(Str),
  displayName: Opt(Str),
  groupDisplayName: Opt(Str),
  repeatable: Opt(Type.Boolean()),
  deprecated: Opt(Type.Boolean()),
  valueMetadata: Opt(Type.Array(Type.Object({ value: Opt(Type.Unknown()), displayName: Opt(Str) }))),
});

/** GET gmb-attribute-metadata: attributes.list for a location (default: the selected one) or a category and region. */
const getAttributeMetadata = tool({
  method: 'GET',
  path: 'gmb-attribute-metadata',
  tags: ['GMB Attributes'],
  summary: 'Get attribute metadata',
  querystring: Type.Object({
    locationId: LocationId,
    categoryName: Opt(Type.String({ pattern: '^categories/[A-Za-z0-9_:.-]+$', maxLength: 200 })),
    regionCode: Opt(Type.String({ pattern: '^[A-Za-z]{2}$' })),
    languageCode: Opt(Type.String({ pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$', maxLength: 35 })),
    pageSize: Opt(Type.Integer({ minimum: 1, maximum: 200 })),
    pageToken: Opt(Type.String({ minLength: 1, maxLength: 2000 })),
  }),
  response: Type.Object({
    success: Type.Boolean(),
    accountId: Str,
    locationId: Opt(Str),
    attributeMetadata: Type.Array(AttributeMetadata),
    nextPageToken: Opt(Str),
  }),
  async handler({ adapter, account, query, io }) {
    if (query.categoryName && query.locationId) {
      throw invalidFields('locationId and categoryName are mutually exclusive', {
        categoryName: ['cannot be combined with locationId'],
      });
    }
    if (query.categoryName && !query.regionCode)
      throw invalidFields('regionCode is required with categoryName', {
        regionCode: ['is required with categoryName'],
      });
    const q = new URLSearchParams({
      ...(query.pageSize ? { pageSize: String(query.pageSize) } : {}),
      ...(query.pageToken ? { pageToken: query.pageToken } : {}),
    });
    let locationId: string | undefined;
    if (query.categoryName) {
      q.set('categoryName', query.categoryName);
      q.set('regionCode', query.regionCode!.toUpperCase());
      if (query.languageCode) q.set('languageCode', query.languageCode);
    } else {
      // Google: with `parent`, category, region and language "are not required and must not be set".
      const where = await adapter.resolveLocation(account!, query.locationId, io);
      q.set('parent', where.v1);
      locationId = where.locationId;
    }
    const res = await gbpRequest(io, {
      method: 'GET',
      url: `${adapter.options.infoUrl}/v1/attributes?${q}`,
      token: token(account!),
    });
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        ...(locationId ? { locationId } : {}),
        attributeMetadata: res.body?.attributeMetadata ?? [],
        ...(typeof res.body?.nextPageToken === 'string' && res.body.nextPageToken
          ? { nextPageToken: res.body.nextPageToken }
          : {}),
      },
    };
  },
});

const PLACE_ACTION_TYPES = [
  'APPOINTMENT',
  'ONLINE_APPOINTMENT',
  'DINING_RESERVATION',
  'FOOD_ORDERING',
  'FOOD_DELIVERY',
  'FOOD_TAKEOUT',
  'SHOP_ONLINE',
];

/** PATCH gmb-place-actions: placeActionLinks.patch of the link `name` (of the account's location, or `?locationId`). */
const patchPlaceAction = tool({
  method: 'PATCH',
  path: 'gmb-place-actions',
  tags: ['GMB Place Actions'],
  summary: 'Update action link',
  querystring: Type.Object({ locationId: LocationId }),
  body: Type.Object({
    name: Type.String({ pattern: '^locations/[0-9]+/placeActionLinks/[A-Za-z0-9_-]+$', maxLength: 200 }),
    uri: Opt(Type.String({ minLength: 1, maxLength: 2000 })),
    placeActionType: Opt(Type.Union(PLACE_ACTION_TYPES.map((t) => Type.Literal(t)))),
  }),
  response: Type.Object({ success: Type.Boolean(), name: Str, uri: Str, placeActionType: Str }),
  async handler({ adapter, account, query, body, io }) {
    const mask = (['uri', 'placeActionType'] as const).filter((k) => body[k] !== undefined);
    if (!mask.length)
      throw invalidFields('Send uri, placeActionType or both', {
        uri: ['at least one of uri or placeActionType is required'],
      });
    const [linkLocation, linkId] = body.name.split('/placeActionLinks/');
    const where = await adapter.resolveLocation(account!, query.locationId ?? linkLocation, io);
    if (where.v1 !== linkLocation) {
      throw invalidFields(`the link ${body.name} is not one of location ${where.locationId}`, {
        name: ['must be a link of the location'],
      });
    }
    const res = await gbpRequest(io, {
      method: 'PATCH',
      url: `${adapter.options.placeActionsUrl}/v1/${where.v1}/placeActionLinks/${linkId}?updateMask=${mask.join(',')}`,
      token: token(account!),
      json: Object.fromEntries(mask.map((k) => [k, body[k]])),
    });
    return {
      body: {
        success: true,
        name: String(res.body?.name ?? body.name),
        uri: String(res.body?.uri ?? ''),
        placeActionType: String(res.body?.placeActionType ?? ''),
      },
    };
  },
});

export const SERVICES_TOOLS = [getServices, putServices, getAttributeMetadata, patchPlaceAction];
