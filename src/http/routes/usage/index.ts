import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import getUsage from './get-usage.js';
import getUsageStats from './get-usage-stats.js';

export function registerUsageRoutes(app: App, ctx: AppContext): void {
  getUsageStats(app, ctx);
  getUsage(app, ctx);
}
