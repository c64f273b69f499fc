import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { presentUser } from '../../../domain/present/team.js';
import { listUsers } from '../../../domain/team/users.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { User } from './schemas.js';

export default function listUsersRoute(app: App, ctx: AppContext) {
  app.get(
    '/users',
    {
      schema: {
        tags: ['Users'],
        summary: 'The users of your team (owner and members), with the caller id',
        response: {
          200: Type.Object({ currentUserId: Type.String(), users: Type.Array(User) }),
          ...errorResponses(401),
        },
      },
    },
    async (request) => {
      const users = await listUsers(ctx.db, request.principal);
      return { currentUserId: request.principal.userId, users: users.map(presentUser) };
    },
  );
}
