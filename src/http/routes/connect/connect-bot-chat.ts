import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { connectBotChat } from '../../../domain/connect/bot.js';
import type { PlatformDescriptor } from '../../../platforms/descriptor.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { BotAccount } from './schemas.js';

/** POST /v1/connect/{platform}: connects a chat the bot was added to, by chat id or @username. */
export default function connectBotChatRoute(app: App, ctx: AppContext, d: PlatformDescriptor) {
  app.post(
    `/connect/${d.id}`,
    {
      schema: {
        tags: ['Connect'],
        summary: `Connect a ${d.name} channel or group by chat id or @username`,
        body: Type.Object({
          chatId: Type.String({ minLength: 1, maxLength: 64 }),
          profileId: Type.String({ minLength: 1, maxLength: 64 }),
        }),
        response: {
          200: Type.Object({ message: Type.String(), account: BotAccount }),
          ...errorResponses(400, 401, 403, 404, 502),
        },
      },
    },
    async (request) => connectBotChat(ctx, request.principal, d, request.body),
  );
}
