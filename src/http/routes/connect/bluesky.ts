import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import blueskyConnect from './bluesky-connect.js';
import blueskyCredentials from './bluesky-credentials.js';

/** The Bluesky connect endpoints (app password; no OAuth). */
export function registerBlueskyRoutes(app: App, ctx: AppContext): void {
  blueskyConnect(app, ctx);
  blueskyCredentials(app, ctx);
}
