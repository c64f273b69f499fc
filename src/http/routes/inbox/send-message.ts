import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { sendInboxMessage } from '../../../domain/inbox/conversations.js';
import type { App } from '../../app.js';
import { errorResponses, Nullable } from '../../schemas/common.js';
import { AccountId, ConversationParams } from './schemas.js';

const Title = Type.String({ minLength: 1, maxLength: 20 });
const Button = Type.Object({
  type: Type.Union([Type.Literal('url'), Type.Literal('postback'), Type.Literal('phone')]),
  title: Title,
  url: Type.Optional(Type.String({ maxLength: 2000 })),
  payload: Type.Optional(Type.String({ maxLength: 1000 })),
  phone: Type.Optional(Type.String({ maxLength: 40 })),
});
const KeyboardButton = Type.Object({
  text: Type.String({ minLength: 1, maxLength: 200 }),
  callbackData: Type.Optional(Type.String({ maxLength: 64 })),
  url: Type.Optional(Type.String({ maxLength: 2000 })),
});

export const SendMessageBody = Type.Object({
  accountId: AccountId,
  message: Type.Optional(Type.String({ maxLength: 10_000 })),
  /** Herald's JSON form of the multipart `attachment`: a public URL of the file. */
  attachment: Type.Optional(
    Type.Object({
      type: Type.Union(['image', 'video', 'audio', 'file'].map((t) => Type.Literal(t))),
      url: Type.String({ minLength: 1, maxLength: 2000 }),
      filename: Type.Optional(Type.String({ maxLength: 255 })),
    }),
  ),
  /** The SDK's flat form of the same: `attachmentUrl` with `attachmentType` (default image) and `attachmentName`. */
  attachmentUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  attachmentType: Type.Optional(Type.Union(['image', 'video', 'audio', 'file'].map((t) => Type.Literal(t)))),
  attachmentName: Type.Optional(Type.String({ maxLength: 255 })),
  quickReplies: Type.Optional(
    Type.Array(Type.Object({ title: Title, payload: Type.String({ minLength: 1, maxLength: 1000 }), imageUrl: Type.Optional(Type.String({ maxLength: 2000 })) }), { maxItems: 13 }),
  ),
  buttons: Type.Optional(Type.Array(Button, { maxItems: 3 })),
  template: Type.Optional(
    Type.Object({
      type: Type.Literal('generic'),
      elements: Type.Array(
        Type.Object({
          title: Type.String({ minLength: 1, maxLength: 80 }),
          subtitle: Type.Optional(Type.String({ maxLength: 80 })),
          imageUrl: Type.Optional(Type.String({ maxLength: 2000 })),
          buttons: Type.Optional(Type.Array(Button, { maxItems: 3 })),
        }),
        { minItems: 1, maxItems: 10 },
      ),
    }),
  ),
  replyMarkup: Type.Optional(
    Type.Object({
      type: Type.Union([Type.Literal('inline_keyboard'), Type.Literal('reply_keyboard')]),
      keyboard: Type.Array(Type.Array(KeyboardButton, { minItems: 1, maxItems: 8 }), { minItems: 1, maxItems: 20 }),
      oneTime: Type.Optional(Type.Boolean()),
    }),
  ),
  messagingType: Type.Optional(Type.Union(['RESPONSE', 'UPDATE', 'MESSAGE_TAG'].map((t) => Type.Literal(t)))),
  messageTag: Type.Optional(Type.Union(['CONFIRMED_EVENT_UPDATE', 'POST_PURCHASE_UPDATE', 'ACCOUNT_UPDATE', 'HUMAN_AGENT'].map((t) => Type.Literal(t)))),
  replyTo: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});

export default function sendMessageRoute(app: App, ctx: AppContext) {
  app.post(
    '/inbox/conversations/:conversationId/messages',
    {
      schema: {
        tags: ['Messages'],
        summary: 'Send a message in a conversation (400 PLATFORM_LIMITATION for what the platform cannot carry)',
        params: ConversationParams,
        body: SendMessageBody,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            data: Type.Object({ messageId: Type.String(), conversationId: Nullable(Type.String()), sentAt: Nullable(Type.String()), message: Nullable(Type.String()) }),
          }),
          ...errorResponses(400, 401, 403, 404, 429, 502),
        },
      },
    },
    async (request) => {
      const { attachmentUrl, attachmentType, attachmentName, ...body } = request.body as Record<string, any>;
      const attachment = body.attachment ?? (attachmentUrl ? { type: attachmentType ?? 'image', url: attachmentUrl, ...(attachmentName ? { filename: attachmentName } : {}) } : undefined);
      return sendInboxMessage(ctx, request.principal, request.params.conversationId, { ...body, attachment } as never);
    },
  );
}
