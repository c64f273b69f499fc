import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import createAccountGroup from './create-account-group.js';
import deleteAccountGroup from './delete-account-group.js';
import listAccountGroups from './list-account-groups.js';
import updateAccountGroup from './update-account-group.js';

export function registerAccountGroupRoutes(app: App, ctx: AppContext): void {
  listAccountGroups(app, ctx);
  createAccountGroup(app, ctx);
  updateAccountGroup(app, ctx);
  deleteAccountGroup(app, ctx);
}
