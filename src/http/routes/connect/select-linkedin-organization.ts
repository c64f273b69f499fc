import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { selectOrganization } from '../../../domain/connect/selection.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { ConnectedAccount } from './schemas.js';
import { selectionCaller } from './selection-auth.js';

export default function selectLinkedInOrganizationRoute(app: App, ctx: AppContext) {
  app.post(
    '/connect/linkedin/select-organization',
    {
      config: { public: true },
      schema: {
        tags: ['Connect'],
        summary: 'Finish a headless LinkedIn connection as the member or an organization',
        body: Type.Object({
          profileId: Type.String({ minLength: 1, maxLength: 64 }),
          tempToken: Type.String({ minLength: 1, maxLength: 200 }),
          userProfile: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
          accountType: Type.Union([Type.Literal('personal'), Type.Literal('organization')]),
          selectedOrganization: Type.Optional(
            Type.Object({
              id: Type.String({ minLength: 1 }),
              urn: Type.String({ minLength: 1 }),
              name: Type.String({ minLength: 1 }),
              logoUrl: Type.Optional(Type.String()),
              vanityName: Type.Optional(Type.String()),
            }),
          ),
          redirect_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2000 })),
        }),
        response: {
          200: Type.Object({
            message: Type.String(),
            redirect_url: Type.Optional(Type.String()),
            account: ConnectedAccount,
            bulkRefresh: Type.Object({ updatedCount: Type.Integer(), errors: Type.Integer() }),
          }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => selectOrganization(ctx, await selectionCaller(ctx, request), request.body),
  );
}
