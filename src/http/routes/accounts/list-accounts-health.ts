import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { accountsHealth } from '../../../domain/accounts/health.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses, Nullable } from '../../schemas/common.js';
import { HealthStatus } from './schemas.js';

const Item = Type.Object({
  accountId: Type.String(),
  platform: Type.String(),
  username: Type.String(),
  displayName: Type.String(),
  profileId: Type.String(),
  status: HealthStatus,
  canPost: Type.Boolean(),
  canFetchAnalytics: Type.Boolean(),
  tokenValid: Type.Boolean(),
  tokenExpiresAt: Nullable(DateTime),
  needsReconnect: Type.Boolean(),
  issues: Type.Array(Type.String()),
});

export default function listAccountsHealthRoute(app: App, ctx: AppContext) {
  app.get(
    '/accounts/health',
    {
      schema: {
        tags: ['Accounts'],
        summary: 'Health of every connected account',
        querystring: Type.Object({
          profileId: Type.Optional(Type.String({ maxLength: 64 })),
          platform: Type.Optional(Type.String({ maxLength: 32 })),
          status: Type.Optional(HealthStatus),
        }),
        response: {
          200: Type.Object({
            summary: Type.Object({
              total: Type.Integer(),
              healthy: Type.Integer(),
              warning: Type.Integer(),
              error: Type.Integer(),
              needsReconnect: Type.Integer(),
            }),
            accounts: Type.Array(Item),
          }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => accountsHealth(ctx, request.principal, request.query),
  );
}
