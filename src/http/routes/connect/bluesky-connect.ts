import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { connectBlueskyAccount, specConnectInput } from '../../../domain/connect/bluesky.js';
import { presentAccount } from '../../../domain/present/accounts.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { Account } from '../accounts/schemas.js';
import { AppPassword } from './bluesky-schemas.js';

const Body = Type.Object({
  profileId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  handle: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
  appPassword: AppPassword,
  // The SDK's field names are accepted too.
  identifier: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
  state: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});

/**
 * POST /v1/connect/bluesky (the spec's body: profileId, handle, appPassword). Returns the account with
 * its `_id` at the top level too, as the spec shows. A static path: it wins over /connect/:platform.
 */
export default function blueskyConnectRoute(app: App, ctx: AppContext) {
  app.post(
    '/connect/bluesky',
    {
      schema: {
        tags: ['Connect'],
        summary: 'Connect a Bluesky account with a handle and an app password',
        body: Body,
        response: {
          200: Type.Object({ message: Type.String(), _id: Type.String(), account: Account }),
          ...errorResponses(400, 401, 403, 404, 429, 502),
        },
      },
    },
    async (request) => {
      const input = specConnectInput(request.principal, request.body);
      const { account, created } = await connectBlueskyAccount(ctx, request.principal, input);
      return {
        message: created ? 'Bluesky account connected successfully' : 'Bluesky account reconnected successfully',
        _id: account.account_id,
        account: presentAccount(account),
      };
    },
  );
}
