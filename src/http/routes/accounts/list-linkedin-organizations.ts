import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listAccountOrganizations } from '../../../domain/accounts/linkedin.js';
import type { App } from '../../app.js';
import { errorResponses, Nullable } from '../../schemas/common.js';
import { AccountParams } from './schemas.js';

export const Organization = Type.Object({
  id: Type.String(),
  urn: Type.String(),
  name: Type.String(),
  localizedName: Type.String(),
  vanityName: Nullable(Type.String()),
  logoUrl: Nullable(Type.String()),
});

export default function listLinkedInOrganizationsRoute(app: App, ctx: AppContext) {
  app.get(
    '/accounts/:accountId/linkedin-organizations',
    {
      schema: {
        tags: ['Accounts'],
        summary: 'Organizations the LinkedIn account can post as',
        params: AccountParams,
        response: { 200: Type.Object({ organizations: Type.Array(Organization) }), ...errorResponses(400, 401, 404, 502) },
      },
    },
    async (request) => listAccountOrganizations(ctx, request.principal, request.params.accountId),
  );
}
