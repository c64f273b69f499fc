import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { pollTelegramCode } from '../../../domain/connect/telegram.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses } from '../../schemas/common.js';
import { TelegramAccount } from './schemas.js';

const Status = Type.Object({
  status: Type.Union([Type.Literal('pending'), Type.Literal('connected'), Type.Literal('expired')]),
  expiresAt: Type.Optional(DateTime),
  expiresIn: Type.Optional(Type.Integer()),
  chatId: Type.Optional(Type.String()),
  chatTitle: Type.Optional(Type.String()),
  chatType: Type.Optional(Type.String()),
  account: Type.Optional(TelegramAccount),
  message: Type.Optional(Type.String()),
});

export default function pollTelegramCodeRoute(app: App, ctx: AppContext) {
  app.patch(
    '/connect/telegram',
    {
      schema: {
        tags: ['Connect'],
        summary: 'Poll a Telegram access code: pending, connected or expired',
        querystring: Type.Object({ code: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: Status, ...errorResponses(400, 401, 404, 502) },
      },
    },
    async (request) => pollTelegramCode(ctx, request.principal, request.query.code),
  );
}
