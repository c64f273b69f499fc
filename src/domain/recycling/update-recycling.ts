import type { AppContext } from '../../context.js';
import { lockTenantPosts, updatePost as updatePostRow } from '../../store/posts.js';
import { loadPostForUpdate, withAccounts } from '../posts/views.js';
import type { PostView } from '../present/posts.js';
import type { Principal } from '../principal.js';
import type { RecyclingInput } from './config.js';
import { applyRecycling } from './state.js';

/**
 * PUT /v1/posts/{postId} with `recycling` alone on a post that can no longer be edited (published,
 * partial, publishing...): the recycling changes, or turns off, and nothing else. On a published post a
 * change of calendar moves the next copy at once.
 */
export async function updateRecyclingOnly(
  ctx: AppContext,
  caller: Principal,
  postId: string,
  input: RecyclingInput,
): Promise<{ view: PostView; message: string }> {
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    // The tenant lock: the 10-per-account count must see concurrent changes (as creation does).
    await lockTenantPosts(ctx.db, tx, caller.tenantId);
    const { post, targets } = await loadPostForUpdate(tx, caller, postId);
    const updated = { ...post, updated_at: now.toISOString() };
    await applyRecycling(tx, updated, targets, input, now);
    await updatePostRow(tx, caller.tenantId, postId, { updated_at: updated.updated_at });
    const [view] = await withAccounts(tx, caller.tenantId, [{ post: updated, targets }]);
    return { view, message: 'Post updated successfully' };
  });
}
