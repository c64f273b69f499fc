import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { createAccountGroup } from '../../../domain/account-groups.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountGroup, AccountIds, GroupName, presentAccountGroup } from './schemas.js';

const Body = Type.Object({
  name: GroupName,
  accountIds: AccountIds,
  // Deprecated in the hosted API (groups span profiles now): accepted and ignored.
  profileId: Type.Optional(Type.String({ maxLength: 64 })),
});

export default function createAccountGroupRoute(app: App, ctx: AppContext) {
  app.post(
    '/account-groups',
    {
      schema: {
        tags: ['Account Groups'],
        summary: 'Create an account group (409 when the name is taken)',
        body: Body,
        response: {
          201: Type.Object({ message: Type.String(), group: AccountGroup }),
          ...errorResponses(400, 401, 409),
        },
      },
    },
    async (request, reply) => {
      const group = await createAccountGroup(ctx.db, request.principal, request.body, ctx.clock.now());
      return reply
        .status(201)
        .send({ message: 'Account group created successfully', group: presentAccountGroup(group) });
    },
  );
}
