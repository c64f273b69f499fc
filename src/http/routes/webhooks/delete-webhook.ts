import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { deleteTenantWebhook } from '../../../domain/webhooks/settings.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';

export default function deleteWebhookRoute(app: App, ctx: AppContext) {
  app.delete(
    '/webhooks/settings',
    {
      schema: {
        tags: ['Webhooks'],
        summary: 'Delete a webhook (`?id=` or `?webhookId=`); its pending deliveries are dropped',
        querystring: Type.Object({
          id: Type.Optional(Type.String({ maxLength: 64 })),
          webhookId: Type.Optional(Type.String({ maxLength: 64, description: 'Alias of id' })),
        }),
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      await deleteTenantWebhook(ctx, request.principal, request.query.id ?? request.query.webhookId);
      return { success: true };
    },
  );
}
