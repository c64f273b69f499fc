import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { selectAccountOrganization } from '../../../domain/accounts/linkedin.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { Account, AccountParams } from './schemas.js';

export default function updateLinkedInOrganizationRoute(app: App, ctx: AppContext) {
  app.put(
    '/accounts/:accountId/linkedin-organization',
    {
      schema: {
        tags: ['Accounts'],
        summary: 'Post as the member (personal) or as one of their organizations',
        params: AccountParams,
        body: Type.Object({
          accountType: Type.Union([Type.Literal('personal'), Type.Literal('organization')]),
          selectedOrganization: Type.Optional(
            Type.Object({
              id: Type.String({ minLength: 1 }),
              urn: Type.Optional(Type.String()),
              name: Type.Optional(Type.String()),
              vanityName: Type.Optional(Type.String()),
              logoUrl: Type.Optional(Type.String()),
            }),
          ),
        }),
        response: { 200: Type.Object({ message: Type.String(), account: Account }), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => selectAccountOrganization(ctx, request.principal, request.params.accountId, request.body),
  );
}
