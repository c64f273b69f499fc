import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { takePendingData } from '../../../domain/connect/oauth.js';
import type { App } from '../../app.js';
import { errorResponses, Nullable } from '../../schemas/common.js';

const PendingData = Type.Object({
  platform: Type.String(),
  profileId: Type.String(),
  tempToken: Type.String(),
  refreshToken: Nullable(Type.String()),
  expiresIn: Nullable(Type.Integer()),
  userProfile: Type.Record(Type.String(), Type.Unknown()),
  selectionType: Type.String(),
  organizations: Type.Array(
    Type.Object({ id: Type.String(), urn: Type.String(), name: Type.String(), vanityName: Nullable(Type.String()) }),
  ),
  connectToken: Type.String(),
});

/** No API key (spec): the one-use token is the credential. */
export default function getPendingDataRoute(app: App, ctx: AppContext) {
  app.get(
    '/connect/pending-data',
    {
      config: { public: true },
      schema: {
        tags: ['Connect'],
        summary: 'Fetch pending connect data once (headless LinkedIn flow)',
        security: [],
        querystring: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 200: PendingData, ...errorResponses(400, 404) },
      },
    },
    async (request) => (await takePendingData(ctx, request.query.token)) as any,
  );
}
