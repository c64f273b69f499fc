import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { createInvite } from '../../../domain/team/invites.js';
import { presentInvite } from '../../../domain/present/team.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses } from '../../schemas/common.js';

const Body = Type.Object({
  scope: Type.Union([Type.Literal('all'), Type.Literal('profiles')], {
    description: 'all profiles, or only profileIds',
  }),
  profileIds: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 500 })),
});

const InviteToken = Type.Object({
  token: Type.String(),
  scope: Type.String(),
  invitedProfileIds: Type.Array(Type.String()),
  expiresAt: DateTime,
  inviteUrl: Type.String({ format: 'uri' }),
});

export default function createInviteTokenRoute(app: App, ctx: AppContext) {
  app.post(
    '/invite/tokens',
    {
      config: { fullScopeKey: true },
      schema: {
        tags: ['Invites'],
        summary: 'Create a single-use team invitation (valid 7 days)',
        body: Body,
        response: { 201: InviteToken, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const { token, row } = await createInvite(ctx.db, request.principal, request.body, ctx.clock.now());
      return reply.status(201).send(presentInvite(row, token, ctx.config.publicUrl));
    },
  );
}
