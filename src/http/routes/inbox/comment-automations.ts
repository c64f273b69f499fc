import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { createCommentAutomation, listCommentAutomations } from '../../../domain/inbox/automations.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { Automation, CreateBody, ListedAutomation } from './automation-schemas.js';

/** GET lists the caller's comment-to-DM automations; POST creates one (Facebook, Instagram). */
export default function commentAutomationsRoutes(app: App, ctx: AppContext) {
  app.get(
    '/comment-automations',
    {
      schema: {
        tags: ['Comment automations'],
        summary: 'List comment-to-DM automations',
        querystring: Type.Object({ profileId: Type.Optional(Type.String({ maxLength: 64 })) }),
        response: {
          200: Type.Object({ success: Type.Boolean(), automations: Type.Array(ListedAutomation) }),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request) => listCommentAutomations(ctx, request.principal, request.query),
  );
  app.post(
    '/comment-automations',
    {
      schema: {
        tags: ['Comment automations'],
        summary: 'Create a comment-to-DM automation',
        body: CreateBody,
        response: {
          200: Type.Object({ success: Type.Boolean(), automation: Automation }),
          ...errorResponses(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) => createCommentAutomation(ctx, request.principal, request.body),
  );
}
