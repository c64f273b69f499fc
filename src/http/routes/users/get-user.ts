import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { presentUser } from '../../../domain/present/team.js';
import { getUser } from '../../../domain/team/users.js';
import type { App } from '../../app.js';
import { errorResponses, PathId } from '../../schemas/common.js';
import { User } from './schemas.js';

export default function getUserRoute(app: App, ctx: AppContext) {
  app.get(
    '/users/:userId',
    {
      schema: {
        tags: ['Users'],
        summary: 'One user of your team',
        params: Type.Object({ userId: PathId }),
        response: { 200: Type.Object({ user: User }), ...errorResponses(401, 404) },
      },
    },
    async (request) => ({ user: presentUser(await getUser(ctx.db, request.principal, request.params.userId)) }),
  );
}
