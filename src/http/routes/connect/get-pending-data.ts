import { type Static, Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { takePendingData } from '../../../domain/connect/oauth.js';
import { CATALOGUE } from '../../../platforms/catalogue.js';
import type { App } from '../../app.js';
import { errorResponses, Nullable } from '../../schemas/common.js';

/** The destinations of each platform whose headless flow hands over pending data, under its key. */
const destinationLists = Object.fromEntries(
  CATALOGUE.flatMap((d) => {
    const pending = d.capabilities.destinations?.connect?.headless.pendingData;
    return pending ? [[pending.key, Type.Optional(Type.Array(pending.item))]] : [];
  }),
);

const PendingData = Type.Object({
  platform: Type.String(),
  profileId: Type.String(),
  tempToken: Type.String(),
  /** Always null: the platform's tokens stay server-side behind tempToken (this route takes no key). */
  refreshToken: Nullable(Type.String()),
  expiresIn: Nullable(Type.Integer()),
  userProfile: Type.Record(Type.String(), Type.Unknown()),
  selectionType: Type.String(),
  ...destinationLists,
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
        summary: 'Fetch pending connect data once (headless flows that hand over a pending data token)',
        security: [],
        querystring: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 200: PendingData, ...errorResponses(400, 404) },
      },
    },
    // The stored data was written in this shape by the connect flow; the response schema serializes it.
    async (request) => (await takePendingData(ctx, request.query.token)) as Static<typeof PendingData>,
  );
}
