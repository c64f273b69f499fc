import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import { errorResponses, Nullable } from '../../schemas/common.js';

/**
 * What the calling key may do, for clients that shape themselves to it (the dashboard disables what a
 * read-only or profile-scoped key cannot do instead of failing after the click). Any key may read its
 * own: it says nothing the key could not find out by trying.
 */
export default function getCurrentApiKeyRoute(app: App, _ctx: AppContext) {
  app.get(
    '/api-keys/current',
    {
      schema: {
        tags: ['API keys'],
        summary: 'What the calling API key may do: permission, scope, visible profiles, plan and add-ons',
        response: {
          200: Type.Object({
            apiKey: Type.Object({
              id: Type.String(),
              permission: Type.Union([Type.Literal('read-write'), Type.Literal('read')]),
              scope: Type.Union([Type.Literal('full'), Type.Literal('profiles')]),
              profileIds: Nullable(Type.Array(Type.String())),
            }),
            userId: Type.String(),
            plan: Type.String(),
            addons: Type.Array(Type.String()),
          }),
          ...errorResponses(401),
        },
      },
    },
    async (request) => {
      const p = request.principal;
      return {
        apiKey: { id: p.apiKeyId, permission: p.permission, scope: p.keyScope, profileIds: p.profileIds },
        userId: p.userId,
        plan: p.plan,
        addons: [...p.addons],
      };
    },
  );
}
