import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../../context.js';
import { getInboxTopAccounts } from '../../../../domain/analytics/inbox.js';
import type { App } from '../../../app.js';
import { errorResponses } from '../../../schemas/common.js';
import { InboxRange, SourceFilter, TopAccountsResponse } from './schemas.js';

export default function getInboxTopAccountsRoute(app: App, ctx: AppContext) {
  app.get(
    '/analytics/inbox/top-accounts',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'Accounts ranked by inbox message volume',
        querystring: Type.Object({
          ...InboxRange,
          ...SourceFilter,
          profileId: Type.Optional(Type.String({ maxLength: 64 })),
          platform: Type.Optional(Type.String({ maxLength: 40 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
        }),
        response: { 200: TopAccountsResponse, ...errorResponses(400, 401, 402) },
      },
    },
    async (request) => getInboxTopAccounts(ctx, request.principal, request.query),
  );
}
