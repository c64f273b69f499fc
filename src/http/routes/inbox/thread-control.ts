import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { setInboxThreadControl } from '../../../domain/inbox/message-actions.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountId, ConversationParams } from './schemas.js';

export default function threadControlRoute(app: App, ctx: AppContext) {
  app.post(
    '/inbox/conversations/:conversationId/thread-control',
    {
      schema: {
        tags: ['Messages'],
        summary: 'Take, release or pass control of a conversation (handover protocol)',
        params: ConversationParams,
        body: Type.Object({
          accountId: AccountId,
          action: Type.Union([Type.Literal('release'), Type.Literal('take'), Type.Literal('pass')]),
          target: Type.Optional(Type.Literal('ai_agent')),
          metadata: Type.Optional(Type.String({ maxLength: 1000 })),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            control: Type.Object({
              owner: Type.Union([Type.Literal('app'), Type.Literal('ai_agent'), Type.Literal('other')]),
            }),
          }),
          ...errorResponses(400, 401, 403, 404, 429, 502),
        },
      },
    },
    async (request) => setInboxThreadControl(ctx, request.principal, request.params.conversationId, request.body),
  );
}
