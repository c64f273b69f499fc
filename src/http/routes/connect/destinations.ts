import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { startOAuthConnect } from '../../../domain/connect/oauth.js';
import {
  listingStartsOAuth,
  listPendingDestinations,
  selectPendingDestination,
} from '../../../domain/connect/selection.js';
import { presentConnectSelection, presentDestinationList } from '../../../domain/present/connect-selection.js';
import { CATALOGUE, type Platform } from '../../../platforms/catalogue.js';
import type { ConnectDestinationsWire } from '../../../platforms/destinations.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { ConnectedAccount } from './schemas.js';
import { selectionCaller, selectionPrincipal } from './selection-auth.js';

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
  const listed = wire.list.answer?.schema ?? Type.Object({ [wire.list.key]: Type.Array(wire.list.item) });
  // A listing that starts the OAuth flow without a token answers like GET /v1/connect/{platform}.
  const listing = wire.startsOAuth
    ? Type.Union([listed, Type.Object({ authUrl: Type.String(), state: Type.String() })])
    : listed;
  app.get(
    wire.list.path,
    {
      config: { connectToken: true },
      schema: {
        tags: ['Connect'],
        summary: wire.list.summary,
        querystring: wire.list.query,
        ...(wire.list.headers ? { headers: wire.list.headers } : {}),
        response: { 200: listing, ...errorResponses(400, 401, 403, 404, 502) },
      },
    },
    async (request) => {
      const query = request.query as Record<string, unknown>;
      if (listingStartsOAuth(wire, query)) {
        const redirectUrl = (query.redirect_url ?? query.redirectUrl) as string | undefined;
        const principal = await selectionPrincipal(ctx, request);
        return startOAuthConnect(ctx, principal, platform, {
          profileId: String(query.profileId ?? ''),
          redirectUrl,
          headless: redirectUrl !== undefined,
        });
      }
      const caller = await selectionCaller(ctx, request);
      const { destinations, user } = await listPendingDestinations(ctx, caller, platform, query);
      return wire.list.answer
        ? wire.list.answer.present(destinations, user)
        : presentDestinationList(wire.list, destinations);
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
      return presentConnectSelection(
        wire,
        await selectPendingDestination(ctx, caller, platform, request.body as Record<string, unknown>),
      );
    },
  );
}
