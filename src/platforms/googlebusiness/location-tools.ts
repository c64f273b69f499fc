import { Type, type TSchema } from '@sinclair/typebox';
import { platformTool } from '../tools.js';
import { PlatformError } from '../types.js';
import { gbpRequest, token } from './api.js';
import type { GoogleBusinessAdapter } from './index.js';

/*
 * gmb-location-details, gmb-media, gmb-attributes and gmb-place-actions (late-openapi-1.0.1.yaml): the
 * Business Information API v1 (locations.get/patch, getAttributes/updateAttributes), the v4 media API and
 * the Place Actions API v1, on the account's selected location or `?locationId`.
 */

const Opt = <T extends TSchema>(s: T) => Type.Optional(s);
const Str = Type.String();
const LocationId = Opt(Type.String({ pattern: '^(locations/)?[0-9]+$', maxLength: 40 }));
const Where = { success: Type.Boolean(), accountId: Str, locationId: Str };
const tool = platformTool<GoogleBusinessAdapter>();

// The hosted wire writes times as "HH:MM"; Google's TimeOfDay is {hours, minutes}.
const toTime = (hhmm: unknown) => {
  const m = /^(\d{1,2}):(\d{2})$/.exec(String(hhmm ?? ''));
  if (!m)
    throw new PlatformError('rejected', `a time must be HH:MM (got ${JSON.stringify(hhmm)})`, {
      platformCode: 'invalid_time',
    });
  return { hours: Number(m[1]), minutes: Number(m[2]) };
};
/** Google's TimeOfDay. */
interface TimeOfDay {
  hours?: number;
  minutes?: number;
}
const fromTime = (t: TimeOfDay | undefined) =>
  t ? `${String(t.hours ?? 0).padStart(2, '0')}:${String(t.minutes ?? 0).padStart(2, '0')}` : undefined;
// A period keeps its other fields; its open and close times change form (HH:MM <-> TimeOfDay) through `f`.
const mapPeriods = <T, U>(periods: Record<string, unknown>[] | undefined, f: (t: T) => U) =>
  periods?.map((p) => ({
    ...p,
    ...(p.openTime !== undefined ? { openTime: f(p.openTime as T) } : {}),
    ...(p.closeTime !== undefined ? { closeTime: f(p.closeTime as T) } : {}),
  }));

const Period = Type.Object({ openDay: Opt(Str), openTime: Opt(Str), closeDay: Opt(Str), closeTime: Opt(Str) });
const DateParts = Type.Object({ year: Opt(Type.Integer()), month: Opt(Type.Integer()), day: Opt(Type.Integer()) });
const SpecialPeriod = Type.Object({
  startDate: Opt(DateParts),
  endDate: Opt(DateParts),
  openTime: Opt(Str),
  closeTime: Opt(Str),
  closed: Opt(Type.Boolean()),
});
const Details = {
  regularHours: Opt(Type.Object({ periods: Opt(Type.Array(Period)) })),
  specialHours: Opt(Type.Object({ specialHourPeriods: Opt(Type.Array(SpecialPeriod)) })),
  profile: Opt(Type.Object({ description: Opt(Type.String({ maxLength: 750 })) })),
  websiteUri: Opt(Str),
  phoneNumbers: Opt(Type.Object({ primaryPhone: Opt(Str), additionalPhones: Opt(Type.Array(Str)) })),
};
const DETAIL_FIELDS = ['title', 'regularHours', 'specialHours', 'profile', 'websiteUri', 'phoneNumbers'];

/** GET gmb-location-details: locations.get with a read mask (default: every field the wire shows). */
const getDetails = tool({
  method: 'GET',
  path: 'gmb-location-details',
  tags: ['GMB Location Details'],
  summary: 'Get location details',
  querystring: Type.Object({ locationId: LocationId, readMask: Opt(Type.String({ maxLength: 500 })) }),
  response: Type.Object({ ...Where, title: Opt(Str), ...Details }),
  async handler({ adapter, account, query, io }) {
    const where = await adapter.resolveLocation(account!, query.locationId, io);
    const mask = query.readMask ?? DETAIL_FIELDS.join(',');
    const res = await gbpRequest(io, {
      method: 'GET',
      url: `${adapter.options.infoUrl}/v1/${where.v1}?readMask=${encodeURIComponent(mask)}`,
      token: token(account!),
    });
    const loc = res.body ?? {};
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        locationId: where.locationId,
        ...(loc.title !== undefined ? { title: loc.title } : {}),
        ...(loc.regularHours ? { regularHours: { periods: mapPeriods(loc.regularHours.periods, fromTime) } } : {}),
        ...(loc.specialHours
          ? { specialHours: { specialHourPeriods: mapPeriods(loc.specialHours.specialHourPeriods, fromTime) } }
          : {}),
        ...(loc.profile ? { profile: loc.profile } : {}),
        ...(loc.websiteUri !== undefined ? { websiteUri: loc.websiteUri } : {}),
        ...(loc.phoneNumbers ? { phoneNumbers: loc.phoneNumbers } : {}),
      },
    };
  },
});

/** PUT gmb-location-details: locations.patch with the required updateMask. */
const putDetails = tool({
  method: 'PUT',
  path: 'gmb-location-details',
  tags: ['GMB Location Details'],
  summary: 'Update location details',
  querystring: Type.Object({ locationId: LocationId }),
  body: Type.Object({ updateMask: Type.String({ minLength: 1, maxLength: 500 }), ...Details }),
  response: Type.Object(Where),
  async handler({ adapter, account, query, body, io }) {
    const where = await adapter.resolveLocation(account!, query.locationId, io);
    const { updateMask, ...fields } = body;
    const location = {
      ...fields,
      ...(fields.regularHours ? { regularHours: { periods: mapPeriods(fields.regularHours.periods, toTime) } } : {}),
      ...(fields.specialHours
        ? { specialHours: { specialHourPeriods: mapPeriods(fields.specialHours.specialHourPeriods, toTime) } }
        : {}),
    };
    await gbpRequest(io, {
      method: 'PATCH',
      url: `${adapter.options.infoUrl}/v1/${where.v1}?updateMask=${encodeURIComponent(updateMask)}`,
      token: token(account!),
      json: location,
    });
    return { body: { success: true, accountId: account!.accountId, locationId: where.locationId } };
  },
});

const MediaItem = Type.Object({
  name: Str,
  mediaFormat: Str,
  sourceUrl: Opt(Str),
  googleUrl: Opt(Str),
  thumbnailUrl: Opt(Str),
  description: Opt(Str),
  createTime: Opt(Str),
  locationAssociation: Opt(Type.Object({ category: Opt(Str) })),
});

/** GET gmb-media: accounts.locations.media.list (v4). */
const listMedia = tool({
  method: 'GET',
  path: 'gmb-media',
  tags: ['GMB Media'],
  summary: 'List location media',
  querystring: Type.Object({
    locationId: LocationId,
    pageSize: Opt(Type.Integer({ minimum: 1, maximum: 100 })),
    pageToken: Opt(Type.String({ maxLength: 500 })),
  }),
  response: Type.Object({
    ...Where,
    mediaItems: Type.Array(MediaItem),
    nextPageToken: Opt(Str),
    totalMediaItemsCount: Type.Integer(),
  }),
  async handler({ adapter, account, query, io }) {
    const where = await adapter.resolveLocation(account!, query.locationId, io);
    const q = new URLSearchParams({
      ...(query.pageSize ? { pageSize: String(query.pageSize) } : {}),
      ...(query.pageToken ? { pageToken: query.pageToken } : {}),
    });
    const res = await gbpRequest(io, {
      method: 'GET',
      url: `${adapter.options.apiUrl}/v4/${where.v4}/media?${q}`,
      token: token(account!),
    });
    const items = res.body?.mediaItems ?? [];
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        locationId: where.locationId,
        mediaItems: items,
        ...(res.body?.nextPageToken ? { nextPageToken: res.body.nextPageToken } : {}),
        totalMediaItemsCount: Number(res.body?.totalMediaItemCount ?? items.length),
      },
    };
  },
});

/** POST gmb-media: accounts.locations.media.create from a public URL Google fetches. */
const createMedia = tool({
  method: 'POST',
  path: 'gmb-media',
  tags: ['GMB Media'],
  summary: 'Add a photo to the location',
  querystring: Type.Object({ locationId: LocationId }),
  body: Type.Object({
    sourceUrl: Type.String({ minLength: 1, maxLength: 2000 }),
    mediaFormat: Opt(Type.Union([Type.Literal('PHOTO'), Type.Literal('VIDEO')])),
    description: Opt(Type.String({ maxLength: 1000 })),
    category: Opt(
      Type.Union(
        [
          'COVER',
          'PROFILE',
          'LOGO',
          'EXTERIOR',
          'INTERIOR',
          'FOOD_AND_DRINK',
          'MENU',
          'PRODUCT',
          'TEAMS',
          'ADDITIONAL',
        ].map((c) => Type.Literal(c)),
      ),
    ),
  }),
  response: Type.Object({ success: Type.Boolean(), name: Str, mediaFormat: Str, googleUrl: Str }),
  async handler({ adapter, account, query, body, io }) {
    if (!/^https:\/\//.test(body.sourceUrl))
      throw new PlatformError('rejected', 'Google fetches the photo itself: sourceUrl must be a public https URL', {
        platformCode: 'media_url',
      });
    const where = await adapter.resolveLocation(account!, query.locationId, io);
    const res = await gbpRequest(io, {
      method: 'POST',
      url: `${adapter.options.apiUrl}/v4/${where.v4}/media`,
      token: token(account!),
      json: {
        mediaFormat: body.mediaFormat ?? 'PHOTO',
        locationAssociation: { category: body.category ?? 'ADDITIONAL' },
        sourceUrl: body.sourceUrl,
        ...(body.description ? { description: body.description } : {}),
      },
    });
    return {
      body: {
        success: true,
        name: String(res.body?.name ?? ''),
        mediaFormat: String(res.body?.mediaFormat ?? ''),
        googleUrl: String(res.body?.googleUrl ?? ''),
      },
    };
  },
});

/** DELETE gmb-media?mediaId=: accounts.locations.media.delete (the id, or the item's whole name). */
const deleteMedia = tool({
  method: 'DELETE',
  path: 'gmb-media',
  tags: ['GMB Media'],
  summary: 'Delete a location photo',
  querystring: Type.Object({
    locationId: LocationId,
    mediaId: Type.String({ minLength: 1, maxLength: 300, pattern: '^[A-Za-z0-9_/-]+$' }),
  }),
  response: Type.Object({ success: Type.Boolean(), deleted: Type.Boolean(), mediaId: Str }),
  async handler({ adapter, account, query, io }) {
    const where = await adapter.resolveLocation(account!, query.locationId, io);
    const id = query.mediaId.replace(/^.*\/media\//, '');
    await gbpRequest(io, {
      method: 'DELETE',
      url: `${adapter.options.apiUrl}/v4/${where.v4}/media/${encodeURIComponent(id)}`,
      token: token(account!),
    });
    return { body: { success: true, deleted: true, mediaId: query.mediaId } };
  },
});

const Attribute = Type.Object({
  name: Str,
  valueType: Opt(Str),
  values: Opt(Type.Array(Type.Unknown())),
  repeatedEnumValue: Opt(Type.Object({ setValues: Opt(Type.Array(Str)), unsetValues: Opt(Type.Array(Str)) })),
});
// The wire names attributes bare (`has_delivery`); Google as `attributes/has_delivery`.
const bareAttr = <A extends { name?: unknown }>(a: A) => ({ ...a, name: String(a.name).replace(/^attributes\//, '') });

/** GET gmb-attributes: locations.getAttributes. */
const getAttributes = tool({
  method: 'GET',
  path: 'gmb-attributes',
  tags: ['GMB Attributes'],
  summary: 'Get attributes',
  querystring: Type.Object({ locationId: LocationId }),
  response: Type.Object({ ...Where, attributes: Type.Array(Attribute) }),
  async handler({ adapter, account, query, io }) {
    const where = await adapter.resolveLocation(account!, query.locationId, io);
    const res = await gbpRequest(io, {
      method: 'GET',
      url: `${adapter.options.infoUrl}/v1/${where.v1}/attributes`,
      token: token(account!),
    });
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        locationId: where.locationId,
        attributes: (res.body?.attributes ?? []).map(bareAttr),
      },
    };
  },
});

/** PUT gmb-attributes: locations.updateAttributes with the attribute mask (names in the mask but not the list are removed). */
const putAttributes = tool({
  method: 'PUT',
  path: 'gmb-attributes',
  tags: ['GMB Attributes'],
  summary: 'Update attributes',
  querystring: Type.Object({ locationId: LocationId }),
  body: Type.Object({
    attributes: Type.Array(Attribute, { maxItems: 200 }),
    attributeMask: Type.String({ minLength: 1, maxLength: 4000 }),
  }),
  response: Type.Object({ ...Where, attributes: Type.Array(Attribute) }),
  async handler({ adapter, account, query, body, io }) {
    const where = await adapter.resolveLocation(account!, query.locationId, io);
    const mask = body.attributeMask
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean)
      .map((n) => (n.startsWith('attributes/') ? n : `attributes/${n}`));
    const attributes = body.attributes.map((a) => ({
      ...a,
      name: a.name.startsWith('attributes/') ? a.name : `attributes/${a.name}`,
    }));
    const res = await gbpRequest(io, {
      method: 'PATCH',
      url: `${adapter.options.infoUrl}/v1/${where.v1}/attributes?attributeMask=${encodeURIComponent(mask.join(','))}`,
      token: token(account!),
      json: { name: `${where.v1}/attributes`, attributes },
    });
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        locationId: where.locationId,
        attributes: (res.body?.attributes ?? []).map(bareAttr),
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
const Link = Type.Object({ name: Str, uri: Str, placeActionType: Str, createTime: Opt(Str), updateTime: Opt(Str) });
/** A PlaceActionLink as Google answers it: the fields passed on. */
interface PlaceActionLinkJson {
  name?: unknown;
  uri?: unknown;
  placeActionType?: unknown;
  createTime?: string;
  updateTime?: string;
}
const link = (l: PlaceActionLinkJson) => ({
  name: String(l.name),
  uri: String(l.uri),
  placeActionType: String(l.placeActionType),
  createTime: l.createTime,
  updateTime: l.updateTime,
});

/** GET gmb-place-actions: locations.placeActionLinks.list. */
const listPlaceActions = tool({
  method: 'GET',
  path: 'gmb-place-actions',
  tags: ['GMB Place Actions'],
  summary: 'List place action links',
  querystring: Type.Object({
    locationId: LocationId,
    pageSize: Opt(Type.Integer({ minimum: 1, maximum: 100 })),
    pageToken: Opt(Type.String({ maxLength: 500 })),
  }),
  response: Type.Object({ ...Where, placeActionLinks: Type.Array(Link), nextPageToken: Opt(Str) }),
  async handler({ adapter, account, query, io }) {
    const where = await adapter.resolveLocation(account!, query.locationId, io);
    const q = new URLSearchParams({
      ...(query.pageSize ? { pageSize: String(query.pageSize) } : {}),
      ...(query.pageToken ? { pageToken: query.pageToken } : {}),
    });
    const res = await gbpRequest(io, {
      method: 'GET',
      url: `${adapter.options.placeActionsUrl}/v1/${where.v1}/placeActionLinks?${q}`,
      token: token(account!),
    });
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        locationId: where.locationId,
        placeActionLinks: (res.body?.placeActionLinks ?? []).map(link),
        ...(res.body?.nextPageToken ? { nextPageToken: res.body.nextPageToken } : {}),
      },
    };
  },
});

/** POST gmb-place-actions: locations.placeActionLinks.create (the same uri and type twice is Google's 409). */
const createPlaceAction = tool({
  method: 'POST',
  path: 'gmb-place-actions',
  tags: ['GMB Place Actions'],
  summary: 'Create a place action link',
  querystring: Type.Object({ locationId: LocationId }),
  body: Type.Object({
    uri: Type.String({ minLength: 1, maxLength: 2000 }),
    placeActionType: Type.Union(PLACE_ACTION_TYPES.map((t) => Type.Literal(t))),
  }),
  response: Type.Object({ success: Type.Boolean(), name: Str, uri: Str, placeActionType: Str }),
  async handler({ adapter, account, query, body, io }) {
    const where = await adapter.resolveLocation(account!, query.locationId, io);
    const res = await gbpRequest(io, {
      method: 'POST',
      url: `${adapter.options.placeActionsUrl}/v1/${where.v1}/placeActionLinks`,
      token: token(account!),
      json: { uri: body.uri, placeActionType: body.placeActionType },
    });
    return {
      body: {
        success: true,
        name: String(res.body?.name ?? ''),
        uri: String(res.body?.uri ?? body.uri),
        placeActionType: String(res.body?.placeActionType ?? body.placeActionType),
      },
    };
  },
});

/** DELETE gmb-place-actions?name=locations/<l>/placeActionLinks/<id>: the link must be of the account's location. */
const deletePlaceAction = tool({
  method: 'DELETE',
  path: 'gmb-place-actions',
  tags: ['GMB Place Actions'],
  summary: 'Delete a place action link',
  querystring: Type.Object({
    name: Type.String({ pattern: '^locations/[0-9]+/placeActionLinks/[A-Za-z0-9_-]+$', maxLength: 200 }),
  }),
  response: Type.Object({ success: Type.Boolean(), deleted: Type.Boolean(), name: Str }),
  async handler({ adapter, account, query, io }) {
    const where = await adapter.resolveLocation(account!, query.name.split('/placeActionLinks/')[0], io);
    await gbpRequest(io, {
      method: 'DELETE',
      url: `${adapter.options.placeActionsUrl}/v1/${where.v1}/placeActionLinks/${query.name.split('/placeActionLinks/')[1]}`,
      token: token(account!),
    });
    return { body: { success: true, deleted: true, name: query.name } };
  },
});

export const LOCATION_TOOLS = [
  getDetails,
  putDetails,
  listMedia,
  createMedia,
  deleteMedia,
  getAttributes,
  putAttributes,
  listPlaceActions,
  createPlaceAction,
  deletePlaceAction,
];
