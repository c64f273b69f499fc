import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listPendingOrganizations } from '../../../domain/connect/selection.js';
import type { App } from '../../app.js';
import { errorResponses, Nullable } from '../../schemas/common.js';
import { selectionCaller } from './selection-auth.js';

const Org = Type.Object({
  id: Type.String(),
  urn: Type.String(),
  name: Type.String(),
  logoUrl: Type.Optional(Nullable(Type.String())),
  vanityName: Type.Optional(Nullable(Type.String())),
  website: Type.Optional(Nullable(Type.String())),
  industry: Type.Optional(Nullable(Type.String())),
  description: Type.Optional(Nullable(Type.String())),
});

export default function listConnectLinkedInOrganizationsRoute(app: App, ctx: AppContext) {
  app.get(
    '/connect/linkedin/organizations',
    {
      config: { public: true },
      schema: {
        tags: ['Connect'],
        summary: 'Organization details for a pending LinkedIn connection (X-Connect-Token or API key)',
        querystring: Type.Object({
          tempToken: Type.String({ minLength: 1, maxLength: 200 }),
          orgIds: Type.Optional(Type.String({ maxLength: 4000 })),
        }),
        response: { 200: Type.Object({ organizations: Type.Array(Org) }), ...errorResponses(400, 401, 502) },
      },
    },
    async (request) => {
      const caller = await selectionCaller(ctx, request);
      return { organizations: await listPendingOrganizations(ctx, caller, request.query) };
    },
  );
}
