import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listConnectedApps } from '../../../domain/connected-apps.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses } from '../../schemas/common.js';

const ConnectedApp = Type.Object({
  clientId: Type.String({ description: 'The API key id' }),
  clientName: Type.String({ description: 'The API key name' }),
  redirectHost: Type.Null(),
  scopes: Type.Array(Type.String(), { description: 'read, write, and profile:<id> for a profile-scoped key' }),
  authorizedAt: DateTime,
  lastUsedAt: Type.Null(),
  tokenCount: Type.Integer(),
});

export default function listConnectedAppsRoute(app: App, ctx: AppContext) {
  app.get(
    '/me/connected-apps',
    {
      config: { fullScopeKey: true },
      schema: {
        tags: ['API keys'],
        summary: "Apps holding the caller's credentials: in Herald, the caller's live API keys (full-scope key only)",
        response: { 200: Type.Object({ connectedApps: Type.Array(ConnectedApp) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ connectedApps: await listConnectedApps(ctx, request.principal) }),
  );
}
