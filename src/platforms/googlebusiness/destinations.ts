import { Type } from '@sinclair/typebox';
import type { DestinationChoice, DestinationsDeclaration } from '../destinations.js';
import type { Destination } from '../types.js';
import { bareLocationId } from './api.js';

/*
 * Google Business location selection on the hosted API's wire (api-reference.md section 7,
 * late-openapi-1.0.1.yaml /v1/connect/googlebusiness/* and /v1/accounts/{accountId}/gmb-locations).
 * The headless redirect carries the temp token and user (step `select_location`) and a pending data
 * token too: the selection takes `tempToken` (+ `userProfile`) or `pendingDataToken`. Location ids on
 * this wire are the bare numbers; `locations/<n>` is accepted too.
 */

const str = (d: Destination, key: string) => (typeof d.details[key] === 'string' ? (d.details[key] as string) : '');

const item = Type.Object({
  id: Type.String(),
  name: Type.String(),
  accountId: Type.String(),
  accountName: Type.String(),
  address: Type.String(),
  category: Type.String(),
});
const present = (d: Destination) => ({
  id: d.id,
  name: d.name,
  accountId: str(d, 'accountId'),
  accountName: str(d, 'accountName'),
  address: str(d, 'address'),
  category: str(d, 'category'),
});

const choose =
  (field: string) =>
  (body: Record<string, unknown>): DestinationChoice => ({ id: bareLocationId(String(body[field])) });

export const GOOGLEBUSINESS_DESTINATIONS: DestinationsDeclaration = {
  kind: 'location',
  connect: {
    list: {
      path: '/connect/googlebusiness/locations',
      summary: 'List GBP locations of a pending connection (X-Connect-Token or API key)',
      query: Type.Object({
        profileId: Type.String({ minLength: 1, maxLength: 64 }),
        tempToken: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        pendingDataToken: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      }),
      key: 'locations',
      item,
      present,
    },
    select: {
      path: '/connect/googlebusiness/select-location',
      summary: 'Select GBP location: finish a headless Google Business connection',
      body: Type.Object({
        profileId: Type.String({ minLength: 1, maxLength: 64 }),
        locationId: Type.String({ minLength: 1, maxLength: 100 }),
        tempToken: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        pendingDataToken: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        userProfile: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        redirect_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2000 })),
      }),
      choose: choose('locationId'),
      notFound: {
        code: 'location_not_found',
        status: 404,
        field: 'locationId',
        message: 'Selected location not found in available locations',
      },
      message: 'Google Business location connected successfully',
      account: {
        properties: { selectedLocationName: Type.String(), selectedLocationId: Type.String() },
        present: (d) => ({ selectedLocationName: d?.name ?? '', selectedLocationId: d?.id ?? '' }),
      },
    },
    headless: {
      step: 'select_location',
      pendingData: { selectionType: 'locations', key: 'locations', item, present },
    },
  },
  account: {
    list: {
      path: 'gmb-locations',
      summary: 'List GBP locations the connected account manages, with the selected one',
      key: 'locations',
      item: Type.Object({ ...item.properties, websiteUrl: Type.String() }),
      present: (d) => ({ ...present(d), websiteUrl: str(d, 'websiteUrl') }),
      // Listed live from Google on each call: never a cached answer.
      current: {
        properties: { selectedLocationId: Type.Union([Type.String(), Type.Null()]), cached: Type.Boolean() },
        present: (m) => ({ selectedLocationId: typeof m.locationId === 'string' ? m.locationId : null, cached: false }),
      },
    },
    select: {
      path: 'gmb-locations',
      summary: 'Switch which GBP location is active for the account',
      body: Type.Object({ selectedLocationId: Type.String({ minLength: 1, maxLength: 100 }) }),
      choose: choose('selectedLocationId'),
      notFound: {
        code: 'location_not_available',
        status: 400,
        field: 'selectedLocationId',
        message: 'Location not in available locations',
      },
      message: 'Google Business location updated successfully',
      respond: { with: 'selected', key: 'selectedLocation' },
    },
  },
};
