import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { resolveLinkedInMention } from '../../../domain/accounts/linkedin.js';
import type { App } from '../../app.js';
import { errorResponses, Nullable } from '../../schemas/common.js';
import { AccountParams } from './schemas.js';

export default function getLinkedInMentionsRoute(app: App, ctx: AppContext) {
  app.get(
    '/accounts/:accountId/linkedin-mentions',
    {
      schema: {
        tags: ['Accounts'],
        summary: 'Resolve a LinkedIn profile or company to a mention',
        params: AccountParams,
        querystring: Type.Object({
          url: Type.String({ minLength: 1, maxLength: 500 }),
          displayName: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: {
          200: Type.Object({
            urn: Type.String(),
            type: Type.Union([Type.Literal('person'), Type.Literal('organization')]),
            displayName: Type.String(),
            mentionFormat: Type.String(),
            vanityName: Type.Optional(Nullable(Type.String())),
            warning: Type.Optional(Nullable(Type.String())),
          }),
          ...errorResponses(400, 401, 404, 502),
        },
      },
    },
    async (request) => resolveLinkedInMention(ctx, request.principal, request.params.accountId, request.query),
  );
}
