import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { presentWebhook } from '../../../domain/present/webhooks.js';
import { updateTenantWebhook } from '../../../domain/webhooks/settings.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { Webhook, WebhookFields } from './schemas.js';

const Body = Type.Object({
  _id: Type.Optional(Type.String({ maxLength: 64 })),
  webhookId: Type.Optional(Type.String({ maxLength: 64, description: 'Alias of _id' })),
  ...WebhookFields,
});

export default function updateWebhookRoute(app: App, ctx: AppContext) {
  app.put(
    '/webhooks/settings',
    {
      schema: {
        tags: ['Webhooks'],
        summary: 'Update a webhook: `_id` (or `webhookId`) plus the fields to change',
        body: Body,
        response: {
          200: Type.Object({ success: Type.Boolean(), webhook: Webhook }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const { _id, webhookId, ...fields } = request.body;
      const row = await updateTenantWebhook(ctx, request.principal, _id ?? webhookId, fields);
      return { success: true, webhook: presentWebhook(row) };
    },
  );
}
