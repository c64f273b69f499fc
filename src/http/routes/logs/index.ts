import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import getLog from './get-log.js';
import listLogs from './list-logs.js';
import listPostLogs from './list-post-logs.js';
import searchPostLogs from './search-post-logs.js';

/** Publishing logs: /logs, /logs/{logId}, /posts/logs and /posts/{postId}/logs (the rest of /posts is the posts registrar's). */
export function registerLogRoutes(app: App, ctx: AppContext): void {
  listLogs(app, ctx);
  getLog(app, ctx);
  searchPostLogs(app, ctx);
  listPostLogs(app, ctx);
}
