import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import getUser from './get-user.js';
import listUsers from './list-users.js';

export function registerUserRoutes(app: App, ctx: AppContext): void {
  listUsers(app, ctx);
  getUser(app, ctx);
}
