import type { AppContext } from '../../../context.js';
import { invalid } from '../../../errors.js';
import { logOut } from '../../../domain/team/sessions.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { clearSessionCookie } from '../../session-cookie.js';

export default function logOutRoute(app: App, ctx: AppContext) {
  app.post(
    '/auth/logout',
    {
      schema: {
        tags: ['Sign-in'],
        summary: 'Sign out: ends the session on the server and clears its cookie',
        response: { 204: { type: 'null', description: 'Signed out' }, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const sessionId = request.principal.sessionId;
      if (!sessionId) throw invalid('not_a_session', 'This request was made with an API key, not a session');
      await logOut(ctx, sessionId);
      clearSessionCookie(request, reply, ctx.config.publicUrl);
      return reply.status(204).send();
    },
  );
}
