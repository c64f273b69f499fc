import type { AppContext } from '../../../context.js';
import { deleteAccount } from '../../../domain/accounts/manage.js';
import type { App } from '../../app.js';
import { errorResponses, Message } from '../../schemas/common.js';
import { AccountParams } from './schemas.js';

export default function deleteAccountRoute(app: App, ctx: AppContext) {
  app.delete(
    '/accounts/:accountId',
    {
      schema: {
        tags: ['Accounts'],
        summary: 'Disconnect an account (emits account.disconnected, intentional)',
        params: AccountParams,
        response: { 200: Message, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      await deleteAccount(ctx, request.principal, request.params.accountId);
      return { message: 'Account disconnected successfully' };
    },
  );
}
