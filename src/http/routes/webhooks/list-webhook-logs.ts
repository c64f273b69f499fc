import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { presentWebhookLog } from '../../../domain/present/webhooks.js';
import { listTenantWebhookLogs } from '../../../domain/webhooks/logs.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { LogEvent, WebhookLog } from './schemas.js';

export default function listWebhookLogsRoute(app: App, ctx: AppContext) {
  app.get(
    '/webhooks/logs',
    {
      schema: {
        tags: ['Webhooks'],
        summary: 'Delivery attempts of the last 7 days, newest first',
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
          status: Type.Optional(Type.Union([Type.Literal('success'), Type.Literal('failed')])),
          event: Type.Optional(LogEvent),
          webhookId: Type.Optional(Type.String({ maxLength: 64 })),
          eventId: Type.Optional(Type.String({ maxLength: 64, description: 'Every attempt of one event' })),
        }),
        response: { 200: Type.Object({ logs: Type.Array(WebhookLog) }), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const rows = await listTenantWebhookLogs(ctx, request.principal, request.query);
      return { logs: rows.map(presentWebhookLog) };
    },
  );
}
