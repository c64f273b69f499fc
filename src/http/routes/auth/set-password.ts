import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { changeOwnPassword } from '../../../domain/team/sessions.js';
import type { App } from '../../app.js';
import { errorResponses, Message } from '../../schemas/common.js';

const Body = Type.Object({
  currentPassword: Type.Optional(
    Type.String({ maxLength: 1024, description: 'Required when signed in by session and a password is set' }),
  ),
  newPassword: Type.String({ maxLength: 1024, description: 'At least 10 characters' }),
});

export default function setPasswordRoute(app: App, ctx: AppContext) {
  app.put(
    '/auth/password',
    {
      // A password signs in as the whole user: a profile-scoped key cannot set one.
      config: { fullScopeKey: true },
      schema: {
        tags: ['Sign-in'],
        summary: "Set the caller's own password (ends the user's other sessions)",
        body: Body,
        response: { 200: Message, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      await changeOwnPassword(ctx, request.principal, request.body);
      return { message: 'Password set' };
    },
  );
}
