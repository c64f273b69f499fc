import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listConnectionLogs } from '../../../domain/connect/logs.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses, Nullable } from '../../schemas/common.js';
import { MAX_SKIP } from '../logs/schemas.js';

const Json = Type.Record(Type.String(), Type.Unknown());
const Log = Type.Object({
  _id: Type.String(),
  userId: Nullable(Type.String()),
  profileId: Nullable(Type.String()),
  accountId: Nullable(Type.String()),
  platform: Type.String(),
  eventType: Type.String(),
  connectionMethod: Type.String(),
  status: Type.String(),
  error: Nullable(Json),
  success: Nullable(Json),
  context: Json,
  durationMs: Type.Integer(),
  metadata: Json,
  createdAt: DateTime,
});

export default function listConnectionLogsRoute(app: App, ctx: AppContext) {
  app.get(
    '/connections/logs',
    {
      config: { write: false },
      schema: {
        tags: ['Logs'],
        summary: 'Connection logs (connects, reconnects, failures, disconnects), newest first',
        querystring: Type.Object({
          platform: Type.Optional(Type.String({ maxLength: 32 })),
          eventType: Type.Optional(
            Type.Union(
              ['connect_success', 'connect_failed', 'disconnect', 'reconnect_success', 'reconnect_failed', 'all'].map(
                (v) => Type.Literal(v),
              ),
            ),
          ),
          status: Type.Optional(Type.Union([Type.Literal('success'), Type.Literal('failed'), Type.Literal('all')])),
          days: Type.Optional(Type.Integer({ minimum: 1, maximum: 7, default: 7 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
          skip: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_SKIP, default: 0 })),
        }),
        response: {
          200: Type.Object({
            logs: Type.Array(Log),
            pagination: Type.Object({
              total: Type.Integer(),
              limit: Type.Integer(),
              skip: Type.Integer(),
              pages: Type.Integer(),
              hasMore: Type.Boolean(),
            }),
          }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => listConnectionLogs(ctx, request.principal, request.query),
  );
}
