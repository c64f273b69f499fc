import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import listPlatforms from './list-platforms.js';

export function registerPlatformRoutes(app: App, ctx: AppContext): void {
  listPlatforms(app, ctx);
}
