import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { pollBotCode } from '../../../domain/connect/bot.js';
import type { PlatformDescriptor } from '../../../platforms/descriptor.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses } from '../../schemas/common.js';
import { BotAccount } from './schemas.js';

const Status = Type.Object({
  status: Type.Union([Type.Literal('pending'), Type.Literal('connected'), Type.Literal('expired')]),
  expiresAt: Type.Optional(DateTime),
  expiresIn: Type.Optional(Type.Integer()),
  chatId: Type.Optional(Type.String()),
  chatTitle: Type.Optional(Type.String()),
  chatType: Type.Optional(Type.String()),
  account: Type.Optional(BotAccount),
  message: Type.Optional(Type.String()),
});

/** PATCH /v1/connect/{platform}?code=...: pending, connected (with the account) or expired. */
export default function pollAccessCodeRoute(app: App, ctx: AppContext, d: PlatformDescriptor) {
  app.patch(
    `/connect/${d.id}`,
    {
      schema: {
        tags: ['Connect'],
        summary: `Poll a ${d.name} access code: pending, connected or expired`,
        querystring: Type.Object({ code: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: Status, ...errorResponses(400, 401, 404, 502) },
      },
    },
    async (request) => pollBotCode(ctx, request.principal, d, request.query.code),
  );
}
