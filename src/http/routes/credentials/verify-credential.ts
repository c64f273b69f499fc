import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { verifyCredential } from '../../../domain/connected-apps.js';
import type { App } from '../../app.js';
import { errorResponses, Nullable } from '../../schemas/common.js';

export default function verifyCredentialRoute(app: App, ctx: AppContext) {
  app.get(
    '/auth/verify',
    {
      schema: {
        tags: ['API keys'],
        summary: 'Check the API key on this request without reading any data (401 when it is not valid)',
        response: {
          200: Type.Object({
            valid: Type.Boolean(),
            userId: Type.String(),
            name: Nullable(Type.String()),
            email: Nullable(Type.String()),
            authType: Type.Literal('api_key'),
            scope: Type.Null({ description: 'OAuth scopes; null for API keys' }),
          }),
          ...errorResponses(401),
        },
      },
    },
    async (request) => verifyCredential(ctx, request.principal),
  );
}
