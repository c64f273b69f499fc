import { Type } from '@sinclair/typebox';
import type { DestinationChoice, DestinationsDeclaration } from '../destinations.js';
import type { Destination } from '../types.js';

/*
 * Snapchat's public profile selection on the hosted API's wire (api-reference.md, late-openapi-1.0.1.yaml
 * /v1/connect/snapchat/select-profile): GET lists `publicProfiles` for a temp token, POST saves the
 * `selectedPublicProfile`. A Snapchat account always posts as one of the user's public profiles, so the
 * headless redirect hands over a temp token and a step, and a standard connect shows Herald's selection page.
 */

const num = (d: Destination, key: string) => (typeof d.details[key] === 'number' ? (d.details[key] as number) : null);

const profileItem = Type.Object({
  id: Type.String(),
  display_name: Type.String(),
  username: Type.Union([Type.String(), Type.Null()]),
  profile_image_url: Type.Union([Type.String(), Type.Null()]),
  subscriber_count: Type.Union([Type.Integer(), Type.Null()]),
});

function choose(body: Record<string, unknown>): DestinationChoice {
  const chosen = body.selectedPublicProfile as { id: string };
  return { id: chosen.id };
}

export const SNAPCHAT_DESTINATIONS: DestinationsDeclaration = {
  kind: 'profile',
  connect: {
    list: {
      path: '/connect/snapchat/select-profile',
      summary: 'Snapchat public profiles the connecting user can post to (headless flow: X-Connect-Token or API key)',
      query: Type.Object({
        profileId: Type.String({ minLength: 1, maxLength: 64 }),
        tempToken: Type.String({ minLength: 1, maxLength: 200 }),
      }),
      key: 'publicProfiles',
      item: profileItem,
      present: (d) => ({
        id: d.id,
        display_name: d.name,
        username: d.username ?? null,
        profile_image_url: d.picture ?? null,
        subscriber_count: num(d, 'subscriber_count'),
      }),
    },
    select: {
      path: '/connect/snapchat/select-profile',
      summary: 'Finish a headless Snapchat connection with the public profile to post as',
      body: Type.Object({
        profileId: Type.String({ minLength: 1, maxLength: 64 }),
        selectedPublicProfile: Type.Object({
          id: Type.String({ minLength: 1, maxLength: 200 }),
          display_name: Type.String({ maxLength: 500 }),
          username: Type.Optional(Type.String({ maxLength: 500 })),
          profile_image_url: Type.Optional(Type.String({ maxLength: 2000 })),
          subscriber_count: Type.Optional(Type.Integer()),
        }),
        tempToken: Type.String({ minLength: 1, maxLength: 200 }),
        userProfile: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        refreshToken: Type.Optional(Type.String({ maxLength: 4000 })),
        expiresIn: Type.Optional(Type.Integer()),
        redirect_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2000 })),
      }),
      choose,
      notFound: {
        code: 'public_profile_not_found',
        status: 400,
        field: 'selectedPublicProfile',
        message: 'selectedPublicProfile is not a public profile this Snapchat user can post to',
      },
      message: 'Snapchat connected successfully with public profile',
      account: {
        properties: { publicProfileName: Type.String() },
        present: (d) => ({ publicProfileName: d?.name ?? '' }),
      },
    },
    headless: { step: 'select_public_profile' },
  },
};
