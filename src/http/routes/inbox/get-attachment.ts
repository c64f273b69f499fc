import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { resolveInboxAttachment } from '../../../domain/inbox/message-actions.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountId, PlatformItemId } from './schemas.js';

export default function getAttachmentRoute(app: App, ctx: AppContext) {
  app.get(
    '/inbox/conversations/:conversationId/messages/:messageId/attachments/:index',
    {
      schema: {
        tags: ['Messages'],
        summary: "Resolve a message's attachment to its url (302, or JSON with format=json)",
        params: Type.Object({
          conversationId: PlatformItemId,
          messageId: PlatformItemId,
          index: Type.Integer({ minimum: 0, maximum: 100 }),
        }),
        querystring: Type.Object({
          accountId: AccountId,
          format: Type.Optional(Type.Union([Type.Literal('redirect'), Type.Literal('json')])),
        }),
        response: {
          200: Type.Object({ status: Type.String(), url: Type.String(), refreshed: Type.Boolean() }),
          302: Type.Null(),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const { conversationId, messageId, index } = request.params;
      const found = await resolveInboxAttachment(
        ctx,
        request.principal,
        conversationId,
        messageId,
        index,
        request.query.accountId,
      );
      if (request.query.format === 'json') return found;
      return reply.redirect(found.url, 302);
    },
  );
}
