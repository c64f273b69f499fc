import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { usageStats } from '../../../domain/usage.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { UsageStats } from './get-usage-stats.js';

const literals = (values: string[]) => Type.Union(values.map((v) => Type.Literal(v)));
const UtcDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'UTC date YYYY-MM-DD' });

const Metering = Type.Object({
  supported: Type.Boolean(),
  days: Type.Array(Type.Unknown(), { maxItems: 0 }),
});

/**
 * `GET /v1/usage` (today's getUsage): without metering parameters, the snapshot of `/v1/usage-stats`.
 * With `range`, `granularity`, `from` or `to` it is billed-spend metering, which a self-hosted Herald
 * has none of: it answers what the hosted API answers an account without usage-based billing,
 * `{supported: false, days: []}`.
 */
export default function getUsageRoute(app: App, ctx: AppContext) {
  app.get(
    '/usage',
    {
      schema: {
        tags: ['Usage'],
        summary: 'Plan, limits and usage of this month; with metering parameters, {supported: false} (no billing)',
        querystring: Type.Object({
          range: Type.Optional(literals(['cycle', 'prev-cycle', '7d', '14d', '30d', '3mo', '12mo', 'custom'])),
          granularity: Type.Optional(literals(['day', 'month', 'total'])),
          from: Type.Optional(UtcDate),
          to: Type.Optional(UtcDate),
          groupBy: Type.Optional(literals(['profile', 'account'])),
          profileId: Type.Optional(Type.String({ maxLength: 64 })),
          accountId: Type.Optional(Type.String({ maxLength: 64 })),
          reconcile: Type.Optional(Type.Boolean()),
        }),
        response: { 200: Type.Union([UsageStats, Metering]), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.range || q.granularity || q.from || q.to) return { supported: false, days: [] };
      const stats = await usageStats(ctx.db, request.principal, ctx.clock.now());
      return { ...stats, hasAccess: true };
    },
  );
}
