import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listAccountDestinations, selectAccountDestination } from '../../../domain/accounts/destinations.js';
import { presentAccountDestinations, presentAccountSelection } from '../../../domain/present/connect-selection.js';
import { CATALOGUE, type Platform } from '../../../platforms/catalogue.js';
import type { AccountDestinationsWire } from '../../../platforms/destinations.js';
import type { App } from '../../app.js';
import { errorResponses, Nullable } from '../../schemas/common.js';
import { Account, AccountParams } from './schemas.js';

/**
 * The account selection routes of every platform that declares them (capabilities.destinations.account):
 * GET /v1/accounts/{accountId}/<list path> and PUT /v1/accounts/{accountId}/<select path>, in the
 * shapes of its wire. An account of another platform is a 400 `not_<platform>_account`.
 */
export function registerAccountDestinationRoutes(app: App, ctx: AppContext): void {
  for (const descriptor of CATALOGUE) {
    const wire = descriptor.capabilities.destinations?.account;
    if (wire) registerPlatform(app, ctx, descriptor.id, wire);
  }
}

function selectResponse(wire: AccountDestinationsWire) {
  const respond = wire.select.respond;
  if (respond.with === 'account') return Type.Object({ message: Type.String(), account: Account });
  return Type.Object({
    message: Type.String(),
    [respond.key]: Nullable(Type.Object({ id: Type.String(), name: Type.String() })),
  });
}

function registerPlatform(app: App, ctx: AppContext, platform: Platform, wire: AccountDestinationsWire): void {
  app.get(
    `/accounts/:accountId/${wire.list.path}`,
    {
      schema: {
        tags: ['Accounts'],
        summary: wire.list.summary,
        params: AccountParams,
        response: {
          200: Type.Object({ [wire.list.key]: Type.Array(wire.list.item), ...wire.list.current?.properties }),
          ...errorResponses(400, 401, 404, 502),
        },
      },
    },
    async (request) =>
      presentAccountDestinations(
        wire,
        await listAccountDestinations(ctx, request.principal, platform, request.params.accountId),
      ),
  );

  app.put(
    `/accounts/:accountId/${wire.select.path}`,
    {
      schema: {
        tags: ['Accounts'],
        summary: wire.select.summary,
        params: AccountParams,
        body: wire.select.body,
        response: { 200: selectResponse(wire), ...errorResponses(400, 401, 404, 502) },
      },
    },
    async (request) =>
      presentAccountSelection(
        wire,
        await selectAccountDestination(
          ctx,
          request.principal,
          platform,
          request.params.accountId,
          request.body as Record<string, unknown>,
        ),
      ),
  );
}
