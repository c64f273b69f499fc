import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listAccountGroups } from '../../../domain/account-groups.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { AccountGroup, presentAccountGroup } from './schemas.js';

export default function listAccountGroupsRoute(app: App, ctx: AppContext) {
  app.get(
    '/account-groups',
    {
      schema: {
        tags: ['Account Groups'],
        summary: 'List account groups, oldest first, with their account ids',
        response: { 200: Type.Object({ groups: Type.Array(AccountGroup) }), ...errorResponses(401) },
      },
    },
    async (request) => ({ groups: (await listAccountGroups(ctx.db, request.principal)).map(presentAccountGroup) }),
  );
}
