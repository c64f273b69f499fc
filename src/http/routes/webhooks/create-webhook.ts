import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { presentWebhook } from '../../../domain/present/webhooks.js';
import { createWebhook } from '../../../domain/webhooks/settings.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { Webhook, WebhookFields } from './schemas.js';

export default function createWebhookRoute(app: App, ctx: AppContext) {
  app.post(
    '/webhooks/settings',
    {
      schema: {
        tags: ['Webhooks'],
        summary: 'Create a webhook (at most 10 per user; the URL must be https on a public address)',
        body: Type.Object(WebhookFields),
        // NOTE: 200, not 201: the hosted service's contract for this endpoint.
        response: { 200: Type.Object({ success: Type.Boolean(), webhook: Webhook }), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const row = await createWebhook(ctx, request.principal, request.body);
      return { success: true, webhook: presentWebhook(row) };
    },
  );
}
