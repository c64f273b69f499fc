import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { presentProfile } from '../../../domain/present/profiles.js';
import { createProfile } from '../../../domain/profiles.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { Color, Profile } from './schemas.js';

const Body = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  color: Type.Optional(Color),
});

export default function createProfileRoute(app: App, ctx: AppContext) {
  app.post(
    '/profiles',
    {
      schema: {
        tags: ['Profiles'],
        summary: 'Create a profile',
        body: Body,
        response: { 201: Type.Object({ message: Type.String(), profile: Profile }), ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const row = await createProfile(ctx.db, request.principal, request.body, ctx.clock.now());
      return reply.status(201).send({ message: 'Profile created successfully', profile: presentProfile(row) });
    },
  );
}
