import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { presentProfile } from '../../../domain/present/profiles.js';
import { updateProfile } from '../../../domain/profiles.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { Color, Profile, ProfileParams } from './schemas.js';

const Body = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  color: Type.Optional(Color),
  isDefault: Type.Optional(Type.Boolean()),
});

export default function updateProfileRoute(app: App, ctx: AppContext) {
  app.put(
    '/profiles/:profileId',
    {
      schema: {
        tags: ['Profiles'],
        summary: 'Update a profile (only the given fields change)',
        params: ProfileParams,
        body: Body,
        response: { 200: Type.Object({ message: Type.String(), profile: Profile }), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const row = await updateProfile(
        ctx.db,
        request.principal,
        request.params.profileId,
        request.body,
        ctx.clock.now(),
      );
      return { message: 'Profile updated successfully', profile: presentProfile(row) };
    },
  );
}
