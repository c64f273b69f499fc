import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { accountHealth } from '../../../domain/accounts/health.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses, Nullable } from '../../schemas/common.js';
import { AccountParams, HealthStatus } from './schemas.js';

const Strings = Type.Array(Type.String());

export default function getAccountHealthRoute(app: App, ctx: AppContext) {
  app.get(
    '/accounts/:accountId/health',
    {
      schema: {
        tags: ['Accounts'],
        summary: "An account's token and permission health",
        params: AccountParams,
        response: {
          200: Type.Object({
            accountId: Type.String(),
            platform: Type.String(),
            username: Type.String(),
            displayName: Type.String(),
            status: HealthStatus,
            tokenStatus: Type.Object({
              valid: Type.Boolean(),
              expiresAt: Nullable(DateTime),
              expiresIn: Nullable(Type.Integer()),
              needsRefresh: Type.Boolean(),
            }),
            permissions: Type.Object({
              posting: Strings,
              analytics: Strings,
              optional: Strings,
              canPost: Type.Boolean(),
              canFetchAnalytics: Type.Boolean(),
              missingRequired: Strings,
            }),
            issues: Strings,
            recommendations: Strings,
          }),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request) => accountHealth(ctx, request.principal, request.params.accountId),
  );
}
