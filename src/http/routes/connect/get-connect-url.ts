import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { startOAuthConnect } from '../../../domain/connect/oauth.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { PlatformParams } from './schemas.js';

export default function getConnectUrlRoute(app: App, ctx: AppContext) {
  app.get(
    '/connect/:platform',
    {
      schema: {
        tags: ['Connect'],
        summary: 'Start an OAuth connection: returns the authorization URL',
        params: PlatformParams,
        querystring: Type.Object({
          profileId: Type.String({ minLength: 1, maxLength: 64 }),
          redirect_url: Type.Optional(Type.String({ maxLength: 2000 })),
          headless: Type.Optional(Type.Boolean({ default: false })),
        }),
        response: {
          200: Type.Object({ authUrl: Type.String(), state: Type.String() }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) =>
      startOAuthConnect(ctx, request.principal, request.params.platform, {
        profileId: request.query.profileId,
        redirectUrl: request.query.redirect_url,
        headless: request.query.headless,
      }),
  );
}
