import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import acceptInvite from './accept-invite.js';
import createInviteToken from './create-invite-token.js';
import getInvite from './get-invite.js';

export function registerInviteRoutes(app: App, ctx: AppContext): void {
  createInviteToken(app, ctx);
  acceptInvite(app, ctx);
  getInvite(app, ctx);
}
