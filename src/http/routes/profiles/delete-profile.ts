import type { AppContext } from '../../../context.js';
import { deleteProfile } from '../../../domain/profiles.js';
import type { App } from '../../app.js';
import { errorResponses, Message } from '../../schemas/common.js';
import { ProfileParams } from './schemas.js';

export default function deleteProfileRoute(app: App, ctx: AppContext) {
  app.delete(
    '/profiles/:profileId',
    {
      schema: {
        tags: ['Profiles'],
        summary: 'Delete a profile (refused while accounts are connected)',
        params: ProfileParams,
        response: { 200: Message, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      await deleteProfile(ctx.db, request.principal, request.params.profileId, ctx.clock.now());
      return { message: 'Profile deleted successfully' };
    },
  );
}
