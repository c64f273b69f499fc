import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { callbackRedirect, handleOAuthCallback } from '../../../domain/connect/oauth.js';
import { parsePlatform } from '../../../domain/connect/platforms.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { choosePage, messagePage, sendPage } from './pages.js';
import { PlatformParams } from './schemas.js';

/** The platform's redirect back to Herald (public: the browser carries no API key). */
export default function connectCallbackRoute(app: App, ctx: AppContext) {
  app.get(
    '/connect/:platform/callback',
    {
      config: { public: true },
      schema: {
        tags: ['Connect'],
        summary: 'OAuth redirect target (opened by the browser)',
        params: PlatformParams,
        querystring: Type.Object({
          code: Type.Optional(Type.String({ maxLength: 4096 })),
          state: Type.Optional(Type.String({ maxLength: 512 })),
          error: Type.Optional(Type.String({ maxLength: 512 })),
          error_description: Type.Optional(Type.String({ maxLength: 2000 })),
        }),
        response: { 200: Type.String(), 302: Type.Null(), ...errorResponses(400, 404, 502) },
      },
    },
    async (request, reply) => {
      const platform = parsePlatform(request.params.platform);
      const outcome = await handleOAuthCallback(ctx, platform, request.query);
      const target = callbackRedirect(platform, outcome);
      if (target) return reply.redirect(target, 302);
      if (outcome.type === 'failed') throw outcome.error;
      if (outcome.type === 'choose') return sendPage(reply, choosePage(outcome.choice));
      const text =
        outcome.type === 'connected'
          ? `${platform} account ${outcome.account.username} is connected. You can close this window.`
          : 'Authorization received. You can close this window.';
      return sendPage(reply, messagePage('Account connected', text));
    },
  );
}
