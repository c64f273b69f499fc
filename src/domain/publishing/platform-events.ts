import type { AppContext } from '../../context.js';
import type { Executor } from '../../store/db.js';
import { findAccountById, listPostTargets } from '../../store/publishing.js';
import { findPost } from '../../store/posts.js';
import { postPlatformEventData } from '../present/post-event.js';

const OUTCOMES = { published: 'post.platform.published', failed: 'post.platform.failed' } as const;

/**
 * `post.platform.published` / `post.platform.failed`: one target reached its outcome. Called in the
 * transaction that moved the target (the outbox), after the post status was derived again, so the event
 * shows the post as it is at that moment and exists if and only if the move does. A target in any other
 * status (an `unknown` outcome waits for a person) emits nothing.
 */
export async function emitTargetOutcome(
  ctx: AppContext,
  tx: Executor,
  tenantId: string,
  postId: string,
  targetId: string,
  now: Date,
): Promise<void> {
  const post = await findPost(tx, tenantId, postId);
  if (!post) return;
  const targets = await listPostTargets(tx, postId);
  const target = targets.find((t) => t.target_id === targetId);
  if (!target || (target.status !== 'published' && target.status !== 'failed')) return;
  const account = await findAccountById(tx, target.account_id);
  await ctx.events.emit(
    tx,
    tenantId,
    OUTCOMES[target.status],
    postPlatformEventData(post, targets, target, account, { status: target.status }),
    now,
  );
}
