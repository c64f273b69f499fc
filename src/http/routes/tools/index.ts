import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import scrapingTools from './scraping-tools.js';
import validateMedia from './validate-media.js';
import validatePost from './validate-post.js';
import validatePostLength from './validate-post-length.js';

export function registerToolRoutes(app: App, ctx: AppContext): void {
  validatePost(app, ctx);
  validatePostLength(app, ctx);
  validateMedia(app, ctx);
  scrapingTools(app, ctx);
}
