import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { usageStats } from '../../../domain/usage.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses } from '../../schemas/common.js';

export const UsageStats = Type.Object({
  planName: Type.String(),
  billingPeriod: Type.Union([Type.Literal('monthly'), Type.Literal('yearly')]),
  signupDate: DateTime,
  isInvitedUser: Type.Boolean(),
  hasAccess: Type.Optional(Type.Boolean({ description: 'Always true: a self-hosted Herald has no billing' })),
  limits: Type.Object({
    uploads: Type.Integer({ description: 'Posts per month; -1 = unlimited' }),
    profiles: Type.Integer({ description: '-1 = unlimited' }),
  }),
  usage: Type.Object({
    uploads: Type.Integer({ description: 'Posts created this calendar month (UTC)' }),
    profiles: Type.Integer(),
    lastReset: DateTime,
  }),
});

export default function getUsageStatsRoute(app: App, ctx: AppContext) {
  app.get(
    '/usage-stats',
    {
      schema: {
        tags: ['Usage'],
        summary: 'Plan, limits and usage of this month',
        response: { 200: UsageStats, ...errorResponses(401, 404) },
      },
    },
    async (request) => usageStats(ctx.db, request.principal, ctx.clock.now()),
  );
}
