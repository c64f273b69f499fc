import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { revokeConnectedApp } from '../../../domain/connected-apps.js';
import type { App } from '../../app.js';
import { errorResponses, PathId } from '../../schemas/common.js';

export default function revokeConnectedAppRoute(app: App, ctx: AppContext) {
  app.delete(
    '/me/connected-apps/:clientId',
    {
      config: { fullScopeKey: true },
      schema: {
        tags: ['API keys'],
        summary: 'Revoke an app: deletes the API key it holds (idempotent; the calling key is refused)',
        params: Type.Object({ clientId: PathId }),
        response: {
          200: Type.Object({
            revoked: Type.Boolean(),
            clientId: Type.String(),
            revokedTokens: Type.Integer(),
            invalidatedCodes: Type.Integer(),
          }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => revokeConnectedApp(ctx, request.principal, request.params.clientId),
  );
}
