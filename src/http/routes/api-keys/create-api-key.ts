import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { createApiKey } from '../../../domain/api-keys.js';
import { presentApiKey } from '../../../domain/present/api-keys.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { ApiKey } from './schemas.js';

const Body = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  expiresIn: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: 'Days until the key expires' })),
  scope: Type.Optional(Type.Union([Type.Literal('full'), Type.Literal('profiles')], { default: 'full' })),
  profileIds: Type.Optional(Type.Array(Type.String(), { maxItems: 500 })),
  permission: Type.Optional(Type.Union([Type.Literal('read-write'), Type.Literal('read')], { default: 'read-write' })),
});

export default function createApiKeyRoute(app: App, ctx: AppContext) {
  app.post(
    '/api-keys',
    {
      config: { fullScopeKey: true },
      schema: {
        tags: ['API keys'],
        summary: 'Create an API key (the full key is returned once)',
        body: Body,
        response: {
          201: Type.Object({
            message: Type.String(),
            apiKey: Type.Intersect([ApiKey, Type.Object({ key: Type.String() })]),
          }),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request, reply) => {
      const { key, row, profiles } = await createApiKey(ctx.db, request.principal, request.body, ctx.clock.now());
      return reply.status(201).send({ message: 'API key created', apiKey: { ...presentApiKey(row, profiles), key } });
    },
  );
}
