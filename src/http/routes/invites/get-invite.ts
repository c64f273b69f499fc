import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { describeInvite } from '../../../domain/team/invites.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses } from '../../schemas/common.js';

export default function getInviteRoute(app: App, ctx: AppContext) {
  app.get(
    '/invite/:token',
    {
      // Public: this is the invite link (`inviteUrl`). Reading it does not use the invite.
      config: { public: true },
      schema: {
        tags: ['Invites'],
        summary: 'The invite link: scope, expiry and status of an invitation, and how to accept it',
        security: [],
        params: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: {
          200: Type.Object({
            scope: Type.String(),
            invitedProfileIds: Type.Array(Type.String()),
            expiresAt: DateTime,
            status: Type.Union([Type.Literal('pending'), Type.Literal('used'), Type.Literal('expired')]),
            accept: Type.Object({ method: Type.Literal('POST'), url: Type.String(), body: Type.Array(Type.String()) }),
          }),
          302: { type: 'null', description: 'A browser (Accept: text/html) is sent to the dashboard invitation page' },
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      // A browser following the link (it asks for HTML first) gets the dashboard's invitation page,
      // where the invitee sets a password; programs asking for JSON get the description below.
      if (prefersHtml(request.headers.accept)) {
        return reply.redirect(`/app/invite/${encodeURIComponent(request.params.token)}`, 302);
      }
      const { invite, status } = await describeInvite(ctx.db, request.params.token, ctx.clock.now());
      return {
        scope: invite.scope,
        invitedProfileIds: JSON.parse(invite.profile_ids) as string[],
        expiresAt: invite.expires_at,
        status,
        accept: {
          method: 'POST' as const,
          url: `${ctx.config.publicUrl}/v1/invite/accept`,
          body: ['token', 'email', 'name'],
        },
      };
    },
  );
}

function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const html = accept.indexOf('text/html');
  const json = accept.indexOf('application/json');
  return html !== -1 && (json === -1 || html < json);
}
