import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listPendingDestinations, selectPendingDestination } from '../../../domain/connect/selection.js';
import { presentConnectSelection, presentDestinationList } from '../../../domain/present/connect-selection.js';
import { CATALOGUE, type Platform } from '../../../platforms/catalogue.js';
import type { ConnectDestinationsWire } from '../../../platforms/destinations.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { ConnectedAccount } from './schemas.js';
import { selectionCaller } from './selection-auth.js';

/**
 * The connect selection routes of every platform that declares them (capabilities.destinations.connect):
 * its listing (GET) and its selection (POST), at the paths and in the shapes of its wire. Both take an
 * X-Connect-Token or an API key (selection-auth.ts); with a key they are rate limited like every route.
 */
export function registerConnectDestinationRoutes(app: App, ctx: AppContext): void {
  for (const descriptor of CATALOGUE) {
    const wire = descriptor.capabilities.destinations?.connect;
    if (wire) registerPlatform(app, ctx, descriptor.id, wire);
  }
}

function registerPlatform(app: App, ctx: AppContext, platform: Platform, wire: ConnectDestinationsWire): void {
  app.get(
    wire.list.path,
    {
      config: { connectToken: true },
      schema: {
        tags: ['Connect'],
        summary: wire.list.summary,
        querystring: wire.list.query,
        ...(wire.list.headers ? { headers: wire.list.headers } : {}),
        response: { 200: Type.Object({ [wire.list.key]: Type.Array(wire.list.item) }), ...errorResponses(400, 401, 403, 404, 502) },
      },
    },
    async (request) => {
      const caller = await selectionCaller(ctx, request);
      return presentDestinationList(wire.list, await listPendingDestinations(ctx, caller, platform, request.query as Record<string, unknown>));
    },
  );

  app.post(
    wire.select.path,
    {
      config: { connectToken: true },
      schema: {
        tags: ['Connect'],
        summary: wire.select.summary,
        body: wire.select.body,
        response: {
          200: Type.Object({
            message: Type.String(),
            redirect_url: Type.Optional(Type.String()),
            account: Type.Object({ ...ConnectedAccount.properties, ...wire.select.account.properties }),
            ...wire.select.extra?.properties,
          }),
          ...errorResponses(400, 401, 403, 404, 502),
        },
      },
    },
    async (request) => {
      const caller = await selectionCaller(ctx, request);
      return presentConnectSelection(wire, await selectPendingDestination(ctx, caller, platform, request.body as Record<string, unknown>));
    },
  );
}
