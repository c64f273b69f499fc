import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { redeliverWebhookEvent } from '../../../domain/webhooks/redeliver.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';

export default function redeliverWebhookEventRoute(app: App, ctx: AppContext) {
  app.post(
    '/webhooks/logs/redeliver',
    {
      schema: {
        tags: ['Webhooks'],
        summary:
          'Send a logged delivery again, byte for byte with its event id, to the webhook’s current URL (recorded as a new attempt)',
        body: Type.Object({
          webhookId: Type.String({ minLength: 1, maxLength: 64 }),
          eventId: Type.String({ minLength: 1, maxLength: 64 }),
        }),
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String() }),
          ...errorResponses(400, 401, 403, 404, 422),
        },
      },
    },
    async (request) => redeliverWebhookEvent(ctx, request.principal, request.body),
  );
}
