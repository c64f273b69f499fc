import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import { deletePost as deletePostRows } from '../../store/posts.js';
import type { Principal } from '../principal.js';
import { disarmTargets } from './arm.js';
import { assertNotPublishing } from './guards.js';
import { loadPostForUpdate } from './views.js';

/** Deletes a post that has not been published anywhere, with its targets and their publish jobs. */
export async function deletePost(ctx: AppContext, caller: Principal, postId: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const { post, targets } = await loadPostForUpdate(tx, caller, postId);
    if (post.status === 'published' || post.status === 'partial' || targets.some((t) => t.status === 'published')) {
      throw new AppError('invalid', 'post_published', 'Published posts cannot be deleted; unpublish them instead');
    }
    assertNotPublishing(post, targets);
    await disarmTargets(tx, targets);
    await deletePostRows(tx, caller.tenantId, postId);
  });
}
