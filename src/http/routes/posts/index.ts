import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import bulkUploadPosts from './bulk-upload-posts.js';
import createPost from './create-post.js';
import deletePost from './delete-post.js';
import editPost from './edit-post.js';
import getPost from './get-post.js';
import listCalendarPosts from './list-calendar-posts.js';
import listPosts from './list-posts.js';
import resolveTarget from './resolve-target.js';
import retryPost from './retry-post.js';
import syncExternalPosts from './sync-external-posts.js';
import unpublishPost from './unpublish-post.js';
import updatePost from './update-post.js';
import updatePostMetadata from './update-post-metadata.js';

export function registerPostRoutes(app: App, ctx: AppContext): void {
  listPosts(app, ctx);
  listCalendarPosts(app, ctx);
  createPost(app, ctx);
  bulkUploadPosts(app, ctx);
  getPost(app, ctx);
  updatePost(app, ctx);
  deletePost(app, ctx);
  retryPost(app, ctx);
  resolveTarget(app, ctx);
  unpublishPost(app, ctx);
  editPost(app, ctx);
  syncExternalPosts(app, ctx);
  updatePostMetadata(app, ctx);
}
