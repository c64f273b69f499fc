import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { replyToInboxMention } from '../../../domain/inbox/mentions.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountId, PlatformItemId } from './schemas.js';

export default function replyToMentionRoute(app: App, ctx: AppContext) {
  app.post(
    '/inbox/mentions/reply',
    {
      schema: {
        tags: ['Comments'],
        summary: 'Reply to a mention of the account (platforms that allow it)',
        body: Type.Object({
          accountId: AccountId,
          mediaId: PlatformItemId,
          commentId: Type.Optional(PlatformItemId),
          message: Type.String({ minLength: 1, maxLength: 2200 }),
        }),
        response: {
          200: Type.Object({ success: Type.Boolean(), id: Type.String() }),
          ...errorResponses(400, 401, 403, 404, 429, 502),
        },
      },
    },
    async (request) => replyToInboxMention(ctx, request.principal, request.body),
  );
}
