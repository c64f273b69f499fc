import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import { registerBlueskyRoutes } from './bluesky.js';
import connectCallback from './connect-callback.js';
import connectTelegram from './connect-telegram.js';
import { registerConnectDestinationRoutes } from './destinations.js';
import exchangeConnectCode from './exchange-connect-code.js';
import getConnectUrl from './get-connect-url.js';
import getPendingData from './get-pending-data.js';
import getTelegramCode from './get-telegram-code.js';
import listConnectionLogs from './list-connection-logs.js';
import pollTelegramCode from './poll-telegram-code.js';

/**
 * Connect flows. Static paths (`telegram`, `pending-data`, the destination selection paths each platform
 * declares, and the Bluesky helper's `bluesky`) win over `/connect/:platform`. Platform-specific route files register here, one line each.
 *
 * Every route here is a write whatever its method (a GET that hands out an authorization URL or a
 * Telegram code starts a connection): read-only keys are refused unless a route says `write: false`.
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
  registerBlueskyRoutes(app, ctx);
  getPendingData(app, ctx);
  getTelegramCode(app, ctx);
  connectTelegram(app, ctx);
  pollTelegramCode(app, ctx);
  registerConnectDestinationRoutes(app, ctx);
  getConnectUrl(app, ctx);
  exchangeConnectCode(app, ctx);
  connectCallback(app, ctx);
  listConnectionLogs(app, ctx);
}
