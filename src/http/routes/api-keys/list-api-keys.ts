import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listApiKeys } from '../../../domain/api-keys.js';
import { presentApiKey } from '../../../domain/present/api-keys.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { ApiKey } from './schemas.js';

export default function listApiKeysRoute(app: App, ctx: AppContext) {
  app.get(
    '/api-keys',
    {
      config: { fullScopeKey: true },
      schema: {
        tags: ['API keys'],
        summary: "List the caller's API keys (previews only)",
        response: { 200: Type.Object({ apiKeys: Type.Array(ApiKey) }), ...errorResponses(401) },
      },
    },
    async (request) => {
      const { keys, profiles } = await listApiKeys(ctx.db, request.principal);
      return { apiKeys: keys.map((k) => presentApiKey(k, profiles)) };
    },
  );
}
