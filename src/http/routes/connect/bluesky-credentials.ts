import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { connectBlueskyAccount, profileIdFromState } from '../../../domain/connect/bluesky.js';
import { presentAccount } from '../../../domain/present/accounts.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { Account } from '../accounts/schemas.js';
import { AppPassword } from './bluesky-schemas.js';

const Body = Type.Object({
  identifier: Type.String({ minLength: 1, maxLength: 320, description: 'Handle (alice.bsky.social), email or DID' }),
  appPassword: AppPassword,
  state: Type.String({ minLength: 1, maxLength: 200, description: '{userId}-{profileId}' }),
  redirect_url: Type.Optional(Type.String({ maxLength: 2000 })),
  redirectUri: Type.Optional(Type.String({ maxLength: 2000 })),
});

/** POST /v1/connect/bluesky/credentials: the official SDK's Bluesky connect (connect.bluesky.connectBlueskyCredentials). */
export default function blueskyCredentialsRoute(app: App, ctx: AppContext) {
  app.post(
    '/connect/bluesky/credentials',
    {
      schema: {
        tags: ['Connect'],
        summary: 'Connect a Bluesky account with a handle and an app password (SDK body)',
        body: Body,
        response: { 200: Type.Object({ message: Type.String(), account: Account }), ...errorResponses(400, 401, 403, 404, 429, 502) },
      },
    },
    async (request) => {
      const profileId = profileIdFromState(request.principal, request.body.state);
      const { account, created } = await connectBlueskyAccount(ctx, request.principal, {
        profileId,
        identifier: request.body.identifier,
        appPassword: request.body.appPassword,
      });
      return { message: created ? 'Bluesky account connected successfully' : 'Bluesky account reconnected successfully', account: presentAccount(account) };
    },
  );
}
