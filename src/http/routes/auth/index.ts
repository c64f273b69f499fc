import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import getSession from './get-session.js';
import logIn from './log-in.js';
import logOut from './log-out.js';
import setPassword from './set-password.js';

/** Sign-in for people: email and password, a session cookie, its CSRF token (docs/dashboard.md). */
export function registerAuthRoutes(app: App, ctx: AppContext): void {
  logIn(app, ctx);
  logOut(app, ctx);
  getSession(app, ctx);
  setPassword(app, ctx);
}
