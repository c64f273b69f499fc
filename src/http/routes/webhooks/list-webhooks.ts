import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { presentWebhook } from '../../../domain/present/webhooks.js';
import { listTenantWebhooks } from '../../../domain/webhooks/settings.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { Webhook } from './schemas.js';

export default function listWebhooksRoute(app: App, ctx: AppContext) {
  app.get(
    '/webhooks/settings',
    {
      schema: {
        tags: ['Webhooks'],
        summary: 'List webhooks (secrets are never returned)',
        response: { 200: Type.Object({ webhooks: Type.Array(Webhook) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      const rows = await listTenantWebhooks(ctx, request.principal);
      return { webhooks: rows.map(presentWebhook) };
    },
  );
}
