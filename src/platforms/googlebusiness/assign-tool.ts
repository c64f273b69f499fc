import { Type } from '@sinclair/typebox';
import { invalidFields } from '../../errors.js';
import { platformTool } from '../tools.js';
import { bareLocationId } from './api.js';
import type { GoogleBusinessAdapter } from './index.js';

/*
 * POST /v1/accounts/{accountId}/gmb-locations/assign (@zernio/node 0.2.881 assignGoogleBusinessLocation):
 * connects another location the account's Google user manages onto another profile, reusing the
 * account's grant (no consent screen), for agencies with one Google login and one profile per client.
 * The location must be one Google lists for the user (Account Management and Business Information, as
 * at connect); `googleAccountId`, when sent, must be the Google account that holds it. A target profile
 * that already has a Google Business account is a 409 (switch its location with PUT gmb-locations).
 */

const Str = Type.String();
const Envelope = Type.Object({
  error: Str,
  code: Str,
  details: Type.Optional(Type.Object({}, { additionalProperties: true })),
});

const assignLocation = platformTool<GoogleBusinessAdapter>()({
  method: 'POST',
  path: 'gmb-locations/assign',
  tags: ['Connect'],
  summary: 'Assign Google Business Profile location to another profile',
  body: Type.Object({
    profileId: Type.String({ minLength: 1, maxLength: 64 }),
    selectedLocationId: Type.String({ pattern: '^(locations/)?[0-9]+$', maxLength: 40 }),
    googleAccountId: Type.Optional(Type.String({ pattern: '^accounts/[0-9]+$', maxLength: 40 })),
  }),
  response: Type.Object({
    message: Str,
    account: Type.Object({
      accountId: Str,
      platform: Str,
      username: Str,
      displayName: Str,
      isActive: Type.Boolean(),
      selectedLocationName: Str,
      selectedLocationId: Str,
    }),
  }),
  errors: { 409: Envelope },
  async handler({ adapter, account, body, io, connectDestination }) {
    const locationId = bareLocationId(body.selectedLocationId);
    if (body.googleAccountId) {
      // Where Google lists the location: it must be under the Google account the caller named.
      const where = await adapter.resolveLocation(account!, locationId, io);
      if (where.account !== body.googleAccountId) {
        throw invalidFields(`location ${locationId} is under ${where.account}, not ${body.googleAccountId}`, {
          googleAccountId: ['must be the Google account that holds the location'],
        });
      }
    }
    const made = await connectDestination({
      profileId: body.profileId,
      destinationId: locationId,
      onePerProfile: true,
    });
    return {
      body: {
        message: 'Google Business location assigned successfully',
        account: {
          accountId: made.accountId,
          platform: made.platform,
          username: made.username,
          displayName: made.displayName ?? made.username,
          isActive: made.isActive,
          selectedLocationName: String(made.metadata.locationName ?? ''),
          selectedLocationId: String(made.metadata.locationId ?? locationId),
        },
      },
    };
  },
});

export const ASSIGN_TOOLS = [assignLocation];
