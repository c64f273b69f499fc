import type { AppContext } from '../../context.js';
import type { Executor } from '../../store/db.js';
import { findPost, listTargets, updatePost } from '../../store/posts.js';
import { lockPost, moveTarget } from '../../store/publishing.js';
import type { AccountTable } from '../../store/schema.js';
import { postEventData, postPlatformEventData } from '../present/post-event.js';

/** A copy of a post that is gone from its platform, and the status the caller last saw it in. */
export interface GoneTarget {
  tenantId: string;
  postId: string;
  targetId: string;
  /** The change applies only if the target still has this status. */
  from: string;
}

/**
 * The state a copy takes once it is gone from its platform, whoever deleted it (Herald's unpublish, or
 * the account's owner on the platform, which collection finds): the target `cancelled`, so it is not
 * read again, and its post `cancelled` (the post is kept). Compare-and-set on the target's status: false,
 * with nothing written, when someone moved it first (an unpublish and a collection that found it gone,
 * or two collections), so whatever the caller announces happens once.
 */
export async function cancelGoneTarget(tx: Executor, gone: GoneTarget, iso: string): Promise<boolean> {
  // NOTE: the post's row lock first, as the publishing engine takes them (post, then target), so this
  // and a publish of another target of the post cannot deadlock on PostgreSQL.
  await lockPost(tx, gone.postId);
  if (!(await moveTarget(tx, gone.targetId, gone.from, { status: 'cancelled', updated_at: iso }))) return false;
  await updatePost(tx, gone.tenantId, gone.postId, { status: 'cancelled', updated_at: iso });
  return true;
}

/**
 * A Herald post's copy gone from its platform at `deletedAt` (when Herald deleted it, or found it
 * deleted): cancelGoneTarget, then `post.platform.deleted` (with `deletedAt`) and `post.cancelled`, with
 * the post as it now is, in the caller's transaction (the outbox). Returns whether this call moved it.
 */
export async function markTargetDeleted(
  ctx: AppContext,
  tx: Executor,
  gone: GoneTarget,
  account: Pick<AccountTable, 'account_id' | 'platform' | 'username' | 'display_name'> | undefined,
  deletedAt: Date,
): Promise<boolean> {
  const iso = deletedAt.toISOString();
  if (!(await cancelGoneTarget(tx, gone, iso))) return false;
  const post = await findPost(tx, gone.tenantId, gone.postId);
  const rows = await listTargets(tx, [gone.postId]);
  const target = rows.find((r) => r.target_id === gone.targetId);
  if (!post || !target) return true;
  await ctx.events.emit(
    tx,
    gone.tenantId,
    'post.platform.deleted',
    postPlatformEventData(post, rows, target, account, { status: 'deleted', deletedAt: iso }),
    deletedAt,
  );
  await ctx.events.emit(tx, gone.tenantId, 'post.cancelled', postEventData(post, rows), deletedAt);
  return true;
}
