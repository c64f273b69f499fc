import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { startTelegramCode } from '../../../domain/connect/telegram.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses } from '../../schemas/common.js';

export default function getTelegramCodeRoute(app: App, ctx: AppContext) {
  app.get(
    '/connect/telegram',
    {
      schema: {
        tags: ['Connect'],
        summary: 'Generate a Telegram access code (valid 15 minutes)',
        querystring: Type.Object({ profileId: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: {
          200: Type.Object({
            code: Type.String(),
            expiresAt: DateTime,
            expiresIn: Type.Integer(),
            botUsername: Type.String(),
            instructions: Type.Array(Type.String()),
          }),
          ...errorResponses(400, 401, 403, 404, 502),
        },
      },
    },
    async (request) => startTelegramCode(ctx, request.principal, request.query.profileId),
  );
}
