import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { moveAccountToProfile } from '../../../domain/accounts/move.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountParams } from './schemas.js';

export default function moveAccountRoute(app: App, ctx: AppContext) {
  app.patch(
    '/accounts/:accountId',
    {
      schema: {
        tags: ['Accounts'],
        summary: 'Move account to another profile',
        description:
          "Moves the account to another profile of the same user. A profile-scoped key must include both the account's profile and the target (403 otherwise).",
        params: AccountParams,
        body: Type.Object({ profileId: Type.String({ pattern: '^[0-9a-f]{24}$', description: 'The target profile' }) }),
        response: {
          200: Type.Object({ message: Type.String(), profileId: Type.String() }),
          ...errorResponses(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) => {
      const { profileId } = await moveAccountToProfile(
        ctx,
        request.principal,
        request.params.accountId,
        request.body.profileId,
      );
      return { message: 'Account moved successfully', profileId };
    },
  );
}
