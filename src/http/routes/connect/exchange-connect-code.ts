import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { exchangeCodeByApi } from '../../../domain/connect/oauth.js';
import { presentAccount } from '../../../domain/present/accounts.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { Account } from '../accounts/schemas.js';
import { PlatformParams } from './schemas.js';

export default function exchangeConnectCodeRoute(app: App, ctx: AppContext) {
  app.post(
    '/connect/:platform',
    {
      schema: {
        tags: ['Connect'],
        summary: 'Finish an OAuth connection by API (code exchange)',
        params: PlatformParams,
        body: Type.Object({
          code: Type.String({ minLength: 1, maxLength: 4096 }),
          state: Type.String({ minLength: 1, maxLength: 512 }),
          profileId: Type.String({ minLength: 1, maxLength: 64 }),
        }),
        response: {
          200: Type.Object({ message: Type.String(), account: Account }),
          ...errorResponses(400, 401, 403, 404, 502),
        },
      },
    },
    async (request) => {
      const { account, created } = await exchangeCodeByApi(
        ctx,
        request.principal,
        request.params.platform,
        request.body,
      );
      return { message: created ? 'Account connected' : 'Account reconnected', account: presentAccount(account) };
    },
  );
}
