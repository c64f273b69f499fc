import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { startBotCode } from '../../../domain/connect/bot.js';
import type { PlatformDescriptor } from '../../../platforms/descriptor.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses } from '../../schemas/common.js';

/** GET /v1/connect/{platform}: an access code to post in the chat the bot was added to. */
export default function getAccessCodeRoute(app: App, ctx: AppContext, d: PlatformDescriptor) {
  app.get(
    `/connect/${d.id}`,
    {
      schema: {
        tags: ['Connect'],
        summary: `Generate a ${d.name} access code (valid 15 minutes)`,
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
    async (request) => startBotCode(ctx, request.principal, d, request.query.profileId),
  );
}
