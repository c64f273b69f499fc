import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listUnifiedLogs, LOG_TYPES, UNIFIED_MAX_DAYS, UNIFIED_MAX_SKIP } from '../../../domain/unified-logs.js';
import type { App } from '../../app.js';
import { errorResponses, Nullable } from '../../schemas/common.js';
import { LOG_STATUSES } from './schemas.js';

const literals = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));
const Id = Type.String({ maxLength: 64 });

const Query = Type.Object({
  type: Type.Optional(literals(LOG_TYPES)),
  status: Type.Optional(literals([...LOG_STATUSES, 'all'])),
  platform: Type.Optional(Type.String({ maxLength: 32, description: 'A platform id, or all' })),
  action: Type.Optional(
    Type.String({ maxLength: 64, description: 'post.publish, account.connected, webhook.delivered...' }),
  ),
  event: Type.Optional(Type.String({ maxLength: 64, description: 'Webhook event (webhook logs)' })),
  accountId: Type.Optional(Id),
  account_id: Type.Optional(Id),
  search: Type.Optional(Type.String({ maxLength: 200 })),
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: UNIFIED_MAX_DAYS, default: 7 })),
  from: Type.Optional(Type.String({ maxLength: 40 })),
  to: Type.Optional(Type.String({ maxLength: 40 })),
  statusCode: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
  status_code: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
  requestId: Type.Optional(Id),
  request_id: Type.Optional(Id),
  apiKeyId: Type.Optional(Id),
  api_key_id: Type.Optional(Id),
  includeReadReceipts: Type.Optional(Type.Boolean()),
  include_read_receipts: Type.Optional(Type.Boolean()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  skip: Type.Optional(Type.Integer({ minimum: 0, maximum: UNIFIED_MAX_SKIP, default: 0 })),
});

const Log = Type.Object({
  _id: Type.String(),
  type: Type.String({ description: 'publishing, connections or webhooks' }),
  action: Type.String(),
  user_id: Nullable(Type.String()),
  platform: Nullable(Type.String()),
  account_id: Nullable(Type.String()),
  status: Type.String(),
  status_code: Nullable(Type.Integer()),
  error_message: Nullable(Type.String()),
  error_code: Nullable(Type.String()),
  duration_ms: Type.Integer(),
  endpoint: Nullable(Type.String()),
  request_body: Nullable(Type.String()),
  response_body: Nullable(Type.String()),
  created_at: Type.String(),
  metadata: Type.String({ description: 'JSON: post, webhook or connection details' }),
});

export default function listLogsRoute(app: App, ctx: AppContext) {
  app.get(
    '/logs',
    {
      schema: {
        tags: ['Logs'],
        summary: 'The unified log: publishing calls, connections and webhook deliveries, newest first; kept 7 days',
        querystring: Query,
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
    async (request) => {
      const q = request.query;
      return listUnifiedLogs(ctx, request.principal, {
        ...q,
        accountId: q.accountId ?? q.account_id,
        statusCode: q.statusCode ?? q.status_code,
        requestId: q.requestId ?? q.request_id,
        apiKeyId: q.apiKeyId ?? q.api_key_id,
      });
    },
  );
}
