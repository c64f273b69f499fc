import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { updateAccountGroup } from '../../../domain/account-groups.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountGroup, AccountIds, GroupName, GroupParams, presentAccountGroup } from './schemas.js';

const Body = Type.Object({ name: Type.Optional(GroupName), accountIds: Type.Optional(AccountIds) });

export default function updateAccountGroupRoute(app: App, ctx: AppContext) {
  app.put(
    '/account-groups/:groupId',
    {
      schema: {
        tags: ['Account Groups'],
        summary: 'Rename a group, replace its accounts, or both',
        params: GroupParams,
        body: Body,
        response: {
          200: Type.Object({ message: Type.String(), group: AccountGroup }),
          ...errorResponses(400, 401, 404, 409),
        },
      },
    },
    async (request) => {
      const group = await updateAccountGroup(
        ctx.db,
        request.principal,
        request.params.groupId,
        request.body,
        ctx.clock.now(),
      );
      return { message: 'Account group updated successfully', group: presentAccountGroup(group) };
    },
  );
}
