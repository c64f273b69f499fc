import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { acceptInvite } from '../../../domain/team/invites.js';
import { presentUser } from '../../../domain/present/team.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { User } from '../users/schemas.js';

const Body = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200 }),
  email: Type.String({ minLength: 3, maxLength: 254 }),
  name: Type.Optional(Type.String({ maxLength: 100 })),
});

export default function acceptInviteRoute(app: App, ctx: AppContext) {
  app.post(
    '/invite/accept',
    {
      // Public: the invitee has no key yet; the token is the credential.
      config: { public: true },
      schema: {
        tags: ['Invites'],
        summary: "Accept an invitation: creates a member of the inviter's team and returns its API key once",
        security: [],
        body: Body,
        response: {
          201: Type.Object({ message: Type.String(), user: User, apiKey: Type.String() }),
          ...errorResponses(400, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const { user, apiKey } = await acceptInvite(ctx.db, request.body, ctx.clock.now());
      return reply.status(201).send({ message: 'Invite accepted', user: presentUser(user), apiKey });
    },
  );
}
