import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import createProfile from './create-profile.js';
import deleteProfile from './delete-profile.js';
import getProfile from './get-profile.js';
import listProfiles from './list-profiles.js';
import updateProfile from './update-profile.js';

export function registerProfileRoutes(app: App, ctx: AppContext): void {
  listProfiles(app, ctx);
  createProfile(app, ctx);
  getProfile(app, ctx);
  updateProfile(app, ctx);
  deleteProfile(app, ctx);
}
