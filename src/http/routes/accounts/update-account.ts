import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { updateAccount } from '../../../domain/accounts/manage.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountParams } from './schemas.js';

export default function updateAccountRoute(app: App, ctx: AppContext) {
  app.put(
    '/accounts/:accountId',
    {
      schema: {
        tags: ['Accounts'],
        summary: "Update an account's username or display name",
        params: AccountParams,
        body: Type.Object({
          username: Type.Optional(Type.String({ maxLength: 200 })),
          displayName: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: {
          200: Type.Object({ message: Type.String(), username: Type.String(), displayName: Type.String() }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const updated = await updateAccount(ctx, request.principal, request.params.accountId, request.body);
      return { message: 'Account updated successfully', ...updated };
    },
  );
}
