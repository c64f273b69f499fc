import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { presentProfile } from '../../../domain/present/profiles.js';
import { getProfile } from '../../../domain/profiles.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { Profile, ProfileParams } from './schemas.js';

export default function getProfileRoute(app: App, ctx: AppContext) {
  app.get(
    '/profiles/:profileId',
    {
      schema: {
        tags: ['Profiles'],
        summary: 'Get a profile',
        params: ProfileParams,
        response: { 200: Type.Object({ profile: Profile }), ...errorResponses(401, 404) },
      },
    },
    async (request) => ({
      profile: presentProfile(await getProfile(ctx.db, request.principal, request.params.profileId)),
    }),
  );
}
