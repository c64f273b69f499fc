import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import { registerBotConnectRoutes } from './bot.js';
import chooseDestination from './choose-destination.js';
import connectCallback from './connect-callback.js';
import { registerCredentialsConnectRoutes } from './credentials.js';
import { registerConnectDestinationRoutes } from './destinations.js';
import exchangeConnectCode from './exchange-connect-code.js';
import getConnectUrl from './get-connect-url.js';
import getPendingData from './get-pending-data.js';
import listConnectionLogs from './list-connection-logs.js';

/**
 * Connect flows. Static paths (`pending-data`, the destination selection paths each platform declares,
 * and the routes of the platforms that connect with credentials or a bot, registered from their
 * descriptors' connect kind) win over `/connect/:platform`.
 *
 * Every route here is a write whatever its method (a GET that hands out an authorization URL or a
 * bot access code starts a connection): read-only keys are refused unless a route says `write: false`.
 */
export function registerConnectRoutes(app: App, ctx: AppContext): void {
  app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { write: true, ...(route.config as object) };
    });
    registerRoutesOfConnect(scope as App, ctx);
  });
}

function registerRoutesOfConnect(app: App, ctx: AppContext): void {
  registerCredentialsConnectRoutes(app, ctx);
  registerBotConnectRoutes(app, ctx);
  getPendingData(app, ctx);
  registerConnectDestinationRoutes(app, ctx);
  getConnectUrl(app, ctx);
  exchangeConnectCode(app, ctx);
  connectCallback(app, ctx);
  chooseDestination(app, ctx);
  listConnectionLogs(app, ctx);
}
