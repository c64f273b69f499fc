import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { connectTelegramChat } from '../../../domain/connect/telegram.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { TelegramAccount } from './schemas.js';

export default function connectTelegramRoute(app: App, ctx: AppContext) {
  app.post(
    '/connect/telegram',
    {
      schema: {
        tags: ['Connect'],
        summary: 'Connect a Telegram channel or group by chat id or @username',
        body: Type.Object({
          chatId: Type.String({ minLength: 1, maxLength: 64 }),
          profileId: Type.String({ minLength: 1, maxLength: 64 }),
        }),
        response: { 200: Type.Object({ message: Type.String(), account: TelegramAccount }), ...errorResponses(400, 401, 403, 404, 502) },
      },
    },
    async (request) => connectTelegramChat(ctx, request.principal, request.body),
  );
}
