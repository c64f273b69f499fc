import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import { updatePost, updateTarget, type PostRow, type PostTargetRow } from '../../store/posts.js';
import type { PostView } from '../present/posts.js';
import { armPublishJobs } from '../publishing/schedule.js';
import type { Principal } from '../principal.js';
import { assertNotPublishing } from './guards.js';
import { loadPostForUpdate, withAccounts } from './views.js';

/**
 * Re-arms the failed targets of a failed or partial post to publish now. Published targets are left
 * alone, and so are targets whose outcome is unknown: those are checked, never re-sent blindly.
 */
export async function retryPost(ctx: AppContext, caller: Principal, postId: string): Promise<PostView> {
  const now = ctx.clock.now();
  const iso = now.toISOString();
  return ctx.db.transaction(async (tx) => {
    const { post, targets } = await loadPostForUpdate(tx, caller, postId);
    assertNotPublishing(post, targets);
    const failed = targets.filter((t) => t.status === 'failed');
    if (failed.length === 0 || (post.status !== 'failed' && post.status !== 'partial')) {
      throw new AppError('invalid', 'post_not_failed', 'Only failed or partially published posts can be retried', { status: post.status });
    }
    const reset: Partial<PostTargetRow> = {
      status: 'pending',
      error_message: null,
      error_category: null,
      error_source: null,
      error_code: null,
      updated_at: iso,
    };
    for (const t of failed) await updateTarget(tx, t.target_id, reset);
    await armPublishJobs(tx, failed.map((t) => t.target_id), now, now);
    const patch: Partial<PostRow> = { status: 'publishing', updated_at: iso };
    await updatePost(tx, caller.tenantId, postId, patch);
    const updated = targets.map((t) => (t.status === 'failed' ? { ...t, ...reset } : t));
    const [view] = await withAccounts(tx, caller.tenantId, [{ post: { ...post, ...patch }, targets: updated }]);
    return view;
  });
}
