import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import createApiKey from './create-api-key.js';
import deleteApiKey from './delete-api-key.js';
import getCurrentApiKey from './get-current-api-key.js';
import listApiKeys from './list-api-keys.js';

export function registerApiKeyRoutes(app: App, ctx: AppContext): void {
  listApiKeys(app, ctx);
  getCurrentApiKey(app, ctx);
  createApiKey(app, ctx);
  deleteApiKey(app, ctx);
}
