import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { checkHealth } from '../../../domain/health.js';
import type { App } from '../../app.js';
import { Nullable } from '../../schemas/common.js';

const startedAt = Date.now();

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  database: Type.Object({ status: Type.String(), dialect: Type.String(), error: Type.Optional(Type.String()) }),
  scheduler: Type.Object({
    queueDepth: Type.Integer({ description: 'Jobs waiting, due or not, counted up to 100,000' }),
    queueDepthCapped: Type.Boolean({
      description: 'True when there are at least 100,000: queueDepth is then that bound',
    }),
    dueJobs: Type.Integer(),
    lagMs: Type.Integer({ description: 'Age of the oldest overdue job' }),
    oldestDueAt: Nullable(Type.String()),
  }),
  uptimeSeconds: Type.Integer(),
});

export default function healthRoute(app: App, ctx: AppContext) {
  app.get(
    '/health',
    {
      config: { public: true },
      schema: {
        tags: ['System'],
        summary: 'Liveness, database status and scheduler lag',
        security: [],
        response: { 200: Health, 503: Health },
      },
    },
    async (_request, reply) => {
      const report = await checkHealth(ctx, startedAt);
      return reply.status(report.status === 'ok' ? 200 : 503).send(report);
    },
  );
}
