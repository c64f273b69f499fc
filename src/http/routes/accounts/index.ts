import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import deleteAccount from './delete-account.js';
import { registerAccountDestinationRoutes } from './destinations.js';
import getAccountHealth from './get-account-health.js';
import listAccounts from './list-accounts.js';
import listAccountsHealth from './list-accounts-health.js';
import listPlatformPosts from './list-platform-posts.js';
import moveAccount from './move-account.js';
import updateAccount from './update-account.js';

export function registerAccountRoutes(app: App, ctx: AppContext): void {
  listAccounts(app, ctx);
  listAccountsHealth(app, ctx);
  updateAccount(app, ctx);
  moveAccount(app, ctx);
  listPlatformPosts(app, ctx);
  deleteAccount(app, ctx);
  getAccountHealth(app, ctx);
  registerAccountDestinationRoutes(app, ctx);
}
