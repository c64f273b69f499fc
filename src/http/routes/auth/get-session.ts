import type { AppContext } from '../../../context.js';
import { invalid } from '../../../errors.js';
import { presentUser } from '../../../domain/present/team.js';
import { csrfTokenFor, sessionUser } from '../../../domain/team/sessions.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { readSessionCookie } from '../../session-cookie.js';
import { SessionInfo } from './schemas.js';

/**
 * The current session (the dashboard asks on load). Only a same-origin page can read this answer, which
 * is what makes its CSRF token a proof of origin.
 */
export default function getSessionRoute(app: App, ctx: AppContext) {
  app.get(
    '/auth/session',
    {
      schema: {
        tags: ['Sign-in'],
        summary: 'The signed-in user of the session cookie, and the CSRF token of that session',
        response: { 200: SessionInfo, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const token = readSessionCookie(request);
      if (!request.principal.sessionId || !token)
        throw invalid('not_a_session', 'This request was made with an API key, not a session');
      const user = await sessionUser(ctx, request.principal);
      reply.header('Cache-Control', 'no-store');
      return {
        user: presentUser(user),
        csrfToken: csrfTokenFor(token),
        expiresAt: request.principal.sessionExpiresAt!,
      };
    },
  );
}
