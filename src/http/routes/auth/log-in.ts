import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { presentUser } from '../../../domain/present/team.js';
import { logIn } from '../../../domain/team/sessions.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { setSessionCookie } from '../../session-cookie.js';
import { SessionInfo } from './schemas.js';

const Body = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

export default function logInRoute(app: App, ctx: AppContext) {
  app.post(
    '/auth/login',
    {
      // Public: the password is the credential. Attempts are limited per email and per client.
      config: { public: true },
      schema: {
        tags: ['Sign-in'],
        summary: 'Sign in with email and password: sets the session cookie, returns its CSRF token',
        security: [],
        body: Body,
        response: { 200: SessionInfo, ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const session = await logIn(ctx, request.body, request.ip);
      setSessionCookie(request, reply, session, ctx.clock.now(), ctx.config.publicUrl);
      reply.header('Cache-Control', 'no-store');
      return { user: presentUser(session.user), csrfToken: session.csrfToken, expiresAt: session.expiresAt };
    },
  );
}
