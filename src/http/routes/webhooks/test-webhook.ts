import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { testWebhook } from '../../../domain/webhooks/test-delivery.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';

const Result = Type.Object({ success: Type.Boolean(), message: Type.String() });

export default function testWebhookRoute(app: App, ctx: AppContext) {
  app.post(
    '/webhooks/test',
    {
      schema: {
        tags: ['Webhooks'],
        summary: 'Send a `webhook.test` delivery now (500 with success false when the receiver fails)',
        body: Type.Object({ webhookId: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: Result, 500: Result, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const result = await testWebhook(ctx, request.principal, request.body.webhookId);
      // NOTE: the spec's failure answer is a plain 500 body sent here, not a thrown error: the error
      // handler would turn it into an internal_error envelope.
      return reply.status(result.success ? 200 : 500).send(result);
    },
  );
}
