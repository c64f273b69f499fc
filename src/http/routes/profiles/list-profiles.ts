import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { presentProfile } from '../../../domain/present/profiles.js';
import { listProfiles } from '../../../domain/profiles.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { Profile } from './schemas.js';

export default function listProfilesRoute(app: App, ctx: AppContext) {
  app.get(
    '/profiles',
    {
      schema: {
        tags: ['Profiles'],
        summary: 'List profiles, oldest first',
        querystring: Type.Object({ includeOverLimit: Type.Optional(Type.Boolean({ default: false })) }),
        response: { 200: Type.Object({ profiles: Type.Array(Profile) }), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const include = request.query.includeOverLimit === true;
      const profiles = await listProfiles(ctx.db, request.principal, include);
      return { profiles: profiles.map((p) => presentProfile(p.row, include ? { isOverLimit: p.isOverLimit } : {})) };
    },
  );
}
