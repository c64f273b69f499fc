import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listAccounts } from '../../../domain/accounts/manage.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { ListedAccount } from './schemas.js';

export default function listAccountsRoute(app: App, ctx: AppContext) {
  app.get(
    '/accounts',
    {
      schema: {
        tags: ['Accounts'],
        summary: 'List connected accounts',
        querystring: Type.Object({
          profileId: Type.Optional(Type.String({ maxLength: 64 })),
          platform: Type.Optional(Type.String({ maxLength: 32 })),
          includeOverLimit: Type.Optional(Type.Boolean({ default: false })),
        }),
        response: {
          200: Type.Object({ accounts: Type.Array(ListedAccount), hasAnalyticsAccess: Type.Boolean() }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => listAccounts(ctx, request.principal, request.query),
  );
}
