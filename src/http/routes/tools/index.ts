import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import scrapingTools from './scraping-tools.js';
import validatePost from './validate-post.js';

export function registerToolRoutes(app: App, ctx: AppContext): void {
  validatePost(app, ctx);
  scrapingTools(app, ctx);
}
