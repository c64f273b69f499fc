import { conflict } from '../../errors.js';
import type { PostRow, PostTargetRow } from '../../store/posts.js';

/** 409 while the engine holds the post or one of its targets: the publish is under way. */
export function assertNotPublishing(post: PostRow, targets: PostTargetRow[]): void {
  if (post.status === 'publishing' || targets.some((t) => t.status === 'publishing')) {
    throw conflict('post_publishing', 'The post is being published right now; try again when it has finished');
  }
}
