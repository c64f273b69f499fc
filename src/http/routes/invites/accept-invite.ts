import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { acceptInvite } from '../../../domain/team/invites.js';
import { checkNewPassword, startSession } from '../../../domain/team/sessions.js';
import { presentUser } from '../../../domain/present/team.js';
import { hashPassword } from '../../../lib/password.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses } from '../../schemas/common.js';
import { setSessionCookie } from '../../session-cookie.js';
import { User } from '../users/schemas.js';

const Body = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200 }),
  email: Type.String({ minLength: 3, maxLength: 254 }),
  name: Type.Optional(Type.String({ maxLength: 100 })),
  password: Type.Optional(
    Type.String({ maxLength: 1024, description: 'Sets a dashboard password and signs in (session cookie)' }),
  ),
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
          201: Type.Object({
            message: Type.String(),
            user: User,
            apiKey: Type.String(),
            csrfToken: Type.Optional(Type.String({ description: 'With a password: the new session’s CSRF token' })),
            expiresAt: Type.Optional(DateTime),
          }),
          ...errorResponses(400, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const { password, ...input } = request.body;
      const passwordHash = password === undefined ? undefined : await hashPassword(checkNewPassword(password));
      const { user, apiKey } = await acceptInvite(ctx.db, { ...input, passwordHash }, ctx.clock.now());
      const body = { message: 'Invite accepted', user: presentUser(user), apiKey };
      if (!passwordHash) return reply.status(201).send(body);
      const session = await startSession(ctx, user);
      setSessionCookie(request, reply, session, ctx.clock.now(), ctx.config.publicUrl);
      reply.header('Cache-Control', 'no-store');
      return reply.status(201).send({ ...body, csrfToken: session.csrfToken, expiresAt: session.expiresAt });
    },
  );
}
