import fastifyMultipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import { INBOX_ATTACHMENT_MAX_BYTES, type UploadedAttachment } from '../../../domain/inbox/attachment-upload.js';
import { sendInboxMessage } from '../../../domain/inbox/conversations.js';
import { AppError, invalid, invalidFields } from '../../../errors.js';
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

const SendMessageBody = Type.Object({
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
    Type.Array(
      Type.Object({
        title: Title,
        payload: Type.String({ minLength: 1, maxLength: 1000 }),
        imageUrl: Type.Optional(Type.String({ maxLength: 2000 })),
      }),
      { maxItems: 13 },
    ),
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
  messageTag: Type.Optional(
    Type.Union(
      ['CONFIRMED_EVENT_UPDATE', 'POST_PURCHASE_UPDATE', 'ACCOUNT_UPDATE', 'HUMAN_AGENT'].map((t) => Type.Literal(t)),
    ),
  ),
  replyTo: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});

/** Form fields that carry JSON (the contract: "JSON string of ... (same schema as application/json body)"). */
const JSON_FIELDS = new Set(['quickReplies', 'buttons', 'template', 'replyMarkup', 'attachment']);
const uploads = new WeakMap<FastifyRequest, UploadedAttachment>();

/**
 * The multipart form of the contract: text fields, the JSON ones decoded, and at most one file in the
 * field `attachment` (held in memory: at most 25 MB), kept aside for the handler. Runs before the body
 * schema, which then checks the fields exactly as it checks a JSON body.
 */
async function readMultipart(request: FastifyRequest): Promise<void> {
  if (!request.isMultipart()) return;
  const body: Record<string, unknown> = {};
  try {
    const parts = request.parts({
      limits: {
        fileSize: INBOX_ATTACHMENT_MAX_BYTES,
        files: 1,
        fields: 16,
        fieldSize: 64 * 1024,
        parts: 17,
        headerPairs: 50,
      },
    });
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'attachment')
          throw invalid(
            'unexpected_file_field',
            `Send the file in the field attachment, not ${JSON.stringify(part.fieldname)}`,
          );
        uploads.set(request, { bytes: await part.toBuffer(), filename: part.filename || null });
        continue;
      }
      const value = String(part.value);
      if (!JSON_FIELDS.has(part.fieldname)) {
        body[part.fieldname] = value;
        continue;
      }
      try {
        body[part.fieldname] = JSON.parse(value);
      } catch {
        throw invalidFields(`${part.fieldname} is not valid JSON`, {
          [part.fieldname]: ['must be a JSON string of the same shape as in a JSON body'],
        });
      }
    }
  } catch (error) {
    uploads.delete(request);
    if (error instanceof AppError) throw error;
    const code = (error as FastifyError)?.code;
    if (code === 'FST_REQ_FILE_TOO_LARGE')
      throw invalid('file_too_large', `The attachment is larger than ${INBOX_ATTACHMENT_MAX_BYTES} bytes`, {
        maxSize: INBOX_ATTACHMENT_MAX_BYTES,
      });
    if (code === 'FST_FILES_LIMIT') throw invalid('too_many_files', 'Send one file, in the field attachment');
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT')
      throw invalid('too_many_parts', 'The form has too many parts');
    if (code === 'FST_PROTO_VIOLATION')
      throw invalid('forbidden_field_name', 'A form field is named __proto__ or constructor');
    throw invalid(
      'invalid_multipart',
      `The multipart body cannot be read: ${(error as Error)?.message ?? 'malformed'}`,
    );
  }
  request.body = body;
}

export default function sendMessageRoute(app: App, ctx: AppContext) {
  // Its own scope: multipart is parsed for this route only (JSON stays as everywhere else).
  void app.register(async (scope) => {
    await scope.register(fastifyMultipart, { throwFileSizeLimit: true });
    register(scope as App, ctx);
  });
}

function register(app: App, ctx: AppContext) {
  app.post(
    '/inbox/conversations/:conversationId/messages',
    {
      preValidation: readMultipart,
      schema: {
        tags: ['Messages'],
        summary: 'Send a message in a conversation (400 PLATFORM_LIMITATION for what the platform cannot carry)',
        description:
          'JSON, or multipart/form-data with the file in the field `attachment` (at most 25 MB) and the JSON fields as JSON strings.',
        params: ConversationParams,
        body: SendMessageBody,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            data: Type.Object({
              messageId: Type.String(),
              conversationId: Nullable(Type.String()),
              sentAt: Nullable(Type.String()),
              message: Nullable(Type.String()),
            }),
          }),
          ...errorResponses(400, 401, 403, 404, 429, 502),
        },
      },
    },
    async (request) => {
      const { attachmentUrl, attachmentType, attachmentName, ...body } = request.body;
      const attachment =
        body.attachment ??
        (attachmentUrl
          ? {
              type: attachmentType ?? 'image',
              url: attachmentUrl,
              ...(attachmentName ? { filename: attachmentName } : {}),
            }
          : undefined);
      return sendInboxMessage(
        ctx,
        request.principal,
        request.params.conversationId,
        { ...body, attachment } as never,
        uploads.get(request),
      );
    },
  );
}
