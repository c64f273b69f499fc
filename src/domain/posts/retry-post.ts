import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import { updatePost, updateTarget, type PostRow, type PostTargetRow } from '../../store/posts.js';
import type { PostView } from '../present/posts.js';
import { armPublishJobs } from '../publishing/schedule.js';
import type { Principal } from '../principal.js';
import { assertNotPublishing, outcomeUnknownError, unknownTargets } from './guards.js';
import { loadPostForUpdate, withAccounts } from './views.js';

export interface RetryOptions {
  /**
   * Send the targets whose outcome is unknown again too: the caller looked at the platform and the post
   * is not there. Without it they are left alone (never re-sent blindly).
   */
  resendUnknown?: boolean;
}

/**
 * Re-arms the failed targets of a failed or partial post to publish now (and, with `resendUnknown`, the
 * unknown ones). Published targets are left alone. A thread that stopped part way keeps its progress,
 * so the engine continues after its last reply.
 */
export async function retryPost(
  ctx: AppContext,
  caller: Principal,
  postId: string,
  opts: RetryOptions = {},
): Promise<{ view: PostView; message: string }> {
  const now = ctx.clock.now();
  const iso = now.toISOString();
  return ctx.db.transaction(async (tx) => {
    const { post, targets } = await loadPostForUpdate(tx, caller, postId);
    assertNotPublishing(post, targets);
    if (post.status !== 'failed' && post.status !== 'partial') {
      throw new AppError(
        'invalid',
        'post_not_failed',
        `Only failed or partially published posts can be retried; this one is ${post.status}`,
        {
          status: post.status,
        },
      );
    }
    const unknown = unknownTargets(targets);
    const again = targets.filter(
      (t) => t.status === 'failed' || (opts.resendUnknown === true && t.status === 'unknown'),
    );
    if (again.length === 0) {
      if (unknown.length > 0) throw outcomeUnknownError(postId, unknown, 'Nothing was retried');
      throw new AppError('invalid', 'post_not_failed', `The post is ${post.status} but has no failed target to retry`, {
        status: post.status,
      });
    }
    const reset: Partial<PostTargetRow> = {
      status: 'pending',
      error_message: null,
      error_category: null,
      error_source: null,
      error_code: null,
      updated_at: iso,
    };
    for (const t of again) await updateTarget(tx, t.target_id, reset);
    await armPublishJobs(
      tx,
      again.map((t) => t.target_id),
      now,
      now,
    );
    const patch: Partial<PostRow> = { status: 'publishing', updated_at: iso };
    await updatePost(tx, caller.tenantId, postId, patch);
    const ids = new Set(again.map((t) => t.target_id));
    const updated = targets.map((t) => (ids.has(t.target_id) ? { ...t, ...reset } : t));
    const [view] = await withAccounts(tx, caller.tenantId, [{ post: { ...post, ...patch }, targets: updated }]);
    return { view, message: retryMessage(postId, updated) };
  });
}

/** Says what the retry does, and what it left alone: targets whose outcome is unknown wait for a person. */
function retryMessage(postId: string, targets: PostTargetRow[]): string {
  const message = 'Retry scheduled: the failed platforms are being published again';
  const left = unknownTargets(targets);
  if (left.length === 0) return message;
  return (
    `${message}. Left alone: the outcome on ${left.map((t) => t.platform).join(', ')} is unknown; look at the account, then settle it with ` +
    `POST /v1/posts/${postId}/targets/{accountId}/resolve, or retry with {"resendUnknown":true} to send it again`
  );
}
