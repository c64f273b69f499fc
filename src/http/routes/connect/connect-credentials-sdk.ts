import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { connectedMessage, connectWithCredentials, profileIdFromState } from '../../../domain/connect/credentials.js';
import { presentAccount } from '../../../domain/present/accounts.js';
import type { PlatformDescriptor } from '../../../platforms/descriptor.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { Account } from '../accounts/schemas.js';
import { AppPassword } from './schemas.js';

const body = (d: PlatformDescriptor) =>
  Type.Object({
    identifier: Type.String({ minLength: 1, maxLength: 320, description: 'Handle, email or DID' }),
    appPassword: AppPassword(d),
    state: Type.String({ minLength: 1, maxLength: 200, description: '{userId}-{profileId}' }),
    redirect_url: Type.Optional(Type.String({ maxLength: 2000 })),
    redirectUri: Type.Optional(Type.String({ maxLength: 2000 })),
  });

/** POST /v1/connect/{platform}/credentials: the official SDK's credentials connect (connect.<platform>.connect<Platform>Credentials). */
export default function connectCredentialsSdkRoute(app: App, ctx: AppContext, d: PlatformDescriptor) {
  app.post(
    `/connect/${d.id}/credentials`,
    {
      schema: {
        tags: ['Connect'],
        summary: `Connect a ${d.name} account with a handle and an app password (SDK body)`,
        body: body(d),
        response: {
          200: Type.Object({ message: Type.String(), account: Account }),
          ...errorResponses(400, 401, 403, 404, 429, 502),
        },
      },
    },
    async (request) => {
      const profileId = profileIdFromState(request.principal, request.body.state);
      const { account, created } = await connectWithCredentials(ctx, request.principal, d, {
        profileId,
        identifier: request.body.identifier,
        appPassword: request.body.appPassword,
      });
      return { message: connectedMessage(ctx, d, created), account: presentAccount(account) };
    },
  );
}
