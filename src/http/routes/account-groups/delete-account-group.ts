import type { AppContext } from '../../../context.js';
import { deleteAccountGroup } from '../../../domain/account-groups.js';
import type { App } from '../../app.js';
import { errorResponses, Message } from '../../schemas/common.js';
import { GroupParams } from './schemas.js';

export default function deleteAccountGroupRoute(app: App, ctx: AppContext) {
  app.delete(
    '/account-groups/:groupId',
    {
      schema: {
        tags: ['Account Groups'],
        summary: 'Delete an account group (the accounts are not affected)',
        params: GroupParams,
        response: { 200: Message, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      await deleteAccountGroup(ctx.db, request.principal, request.params.groupId);
      return { message: 'Account group deleted successfully' };
    },
  );
}
