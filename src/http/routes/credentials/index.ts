import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import listConnectedApps from './list-connected-apps.js';
import revokeConnectedApp from './revoke-connected-app.js';
import verifyCredential from './verify-credential.js';

/** The caller's own credentials: /auth/verify and /me/connected-apps (API keys an app holds). */
export function registerCredentialRoutes(app: App, ctx: AppContext): void {
  verifyCredential(app, ctx);
  listConnectedApps(app, ctx);
  revokeConnectedApp(app, ctx);
}
