import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { connectedMessage, connectWithCredentials, specConnectInput } from '../../../domain/connect/credentials.js';
import { presentAccount } from '../../../domain/present/accounts.js';
import type { PlatformDescriptor } from '../../../platforms/descriptor.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { Account } from '../accounts/schemas.js';
import { AppPassword } from './schemas.js';

const body = (d: PlatformDescriptor) =>
  Type.Object({
    profileId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    handle: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
    appPassword: AppPassword(d),
    // The SDK's field names are accepted too.
    identifier: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
    state: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  });

/**
 * POST /v1/connect/{platform} (the spec's body: profileId, handle, appPassword). Returns the account with
 * its `_id` at the top level too, as the spec shows.
 */
export default function connectCredentialsRoute(app: App, ctx: AppContext, d: PlatformDescriptor) {
  app.post(
    `/connect/${d.id}`,
    {
      schema: {
        tags: ['Connect'],
        summary: `Connect a ${d.name} account with a handle and an app password`,
        body: body(d),
        response: {
          200: Type.Object({ message: Type.String(), _id: Type.String(), account: Account }),
          ...errorResponses(400, 401, 403, 404, 429, 502),
        },
      },
    },
    async (request) => {
      const input = specConnectInput(request.principal, request.body);
      const { account, created } = await connectWithCredentials(ctx, request.principal, d, input);
      return {
        message: connectedMessage(ctx, d, created),
        _id: account.account_id,
        account: presentAccount(account),
      };
    },
  );
}
