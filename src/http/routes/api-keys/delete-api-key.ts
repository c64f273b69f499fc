import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { deleteApiKey } from '../../../domain/api-keys.js';
import type { App } from '../../app.js';
import { errorResponses, Message, PathId } from '../../schemas/common.js';

export default function deleteApiKeyRoute(app: App, ctx: AppContext) {
  app.delete(
    '/api-keys/:keyId',
    {
      config: { fullScopeKey: true },
      schema: {
        tags: ['API keys'],
        summary: 'Delete an API key (it stops working at once)',
        params: Type.Object({ keyId: PathId }),
        response: { 200: Message, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      await deleteApiKey(ctx.db, request.principal, request.params.keyId, ctx.clock.now());
      return { message: 'API key deleted' };
    },
  );
}
