import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { parsePlatform } from '../../../domain/connect/platforms.js';
import { chooseOnPage } from '../../../domain/connect/selection.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { PlatformParams } from './schemas.js';
import { messagePage, sendPage } from './pages.js';

const FORM = 'application/x-www-form-urlencoded';

/**
 * The form of Herald's selection page (public: the browser carries no API key; the temp token in the
 * form is the credential). Form bodies are parsed for this route alone.
 */
export default function chooseDestinationRoute(app: App, ctx: AppContext) {
  app.register(async (scope) => {
    scope.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    (scope as App).post(
      '/connect/:platform/choose',
      {
        config: { public: true },
        schema: {
          tags: ['Connect'],
          summary: "Finish a standard-mode connection from Herald's selection page (a browser form)",
          consumes: [FORM],
          params: PlatformParams,
          body: Type.Object({
            tempToken: Type.String({ minLength: 1, maxLength: 512 }),
            destinationId: Type.String({ minLength: 1, maxLength: 512 }),
          }),
          response: { 200: Type.String(), 303: Type.Null(), ...errorResponses(400, 404, 429, 502) },
        },
      },
      async (request, reply) => {
        const platform = parsePlatform(request.params.platform);
        const result = await chooseOnPage(ctx, platform, request.body);
        if (result.redirectUrl) return reply.redirect(result.redirectUrl, 303);
        const name = result.destination?.name ?? result.account.username;
        return sendPage(
          reply,
          messagePage('Account connected', `${platform} account ${name} is connected. You can close this window.`),
        );
      },
    );
  });
}
