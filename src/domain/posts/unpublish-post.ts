import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import { descriptorOf } from '../../platforms/catalogue.js';
import { createPlatformIO } from '../../platforms/io.js';
import { PlatformError, type Platform, type ThreadProgress } from '../../platforms/types.js';
import { findAccount } from '../../store/accounts.js';
import { accountCredentials } from '../accounts/save-account.js';
import type { Principal } from '../principal.js';
import { markTargetDeleted } from './deleted-target.js';
import { loadPost } from './views.js';

/**
 * Deletes the post's published copies on `platform` (threads that stopped part way included) through
 * the adapter, then marks those targets and the post `cancelled` (the post is kept). The platform call
 * happens outside any transaction.
 */
export async function unpublishPost(
  ctx: AppContext,
  caller: Principal,
  postId: string,
  platform: Platform,
): Promise<void> {
  // Platforms whose posts can be deleted through their API (reference §8), as their descriptors declare.
  if (!descriptorOf(platform)?.capabilities.unpublish) {
    throw new AppError('invalid', 'unsupported_platform', `Posts on ${platform} cannot be unpublished through the API`);
  }
  const { targets } = await loadPost(ctx.db.kysely, caller, postId);
  const onPlatform = targets.filter((t) => t.platform === platform);
  if (onPlatform.length === 0) throw new AppError('invalid', 'not_on_platform', `The post has no ${platform} target`);
  // A thread that stopped part way is public too (its root and some replies) though not `published`.
  const partThread = (t: (typeof onPlatform)[number]) =>
    t.thread_progress !== null && (t.status === 'failed' || t.status === 'unknown');
  const published = onPlatform.filter((t) => t.platform_post_id && (t.status === 'published' || partThread(t)));
  if (published.length === 0)
    throw new AppError('invalid', 'not_published', `The post is not published on ${platform}`);
  const adapter = ctx.platforms.get(platform);
  if (!adapter?.unpublish) {
    throw new AppError('invalid', 'unpublish_not_supported', `This server cannot unpublish from ${platform}`);
  }
  const io = createPlatformIO({ now: () => ctx.clock.now() });
  for (const t of published) {
    const account = await findAccount(ctx.db.kysely, caller.tenantId, t.account_id);
    if (!account) throw new AppError('invalid', 'account_not_found', `The ${platform} account of this post is gone`);
    try {
      const thread = t.thread_progress ? (JSON.parse(t.thread_progress) as ThreadProgress) : null;
      await adapter.unpublish(accountCredentials(ctx, account), t.platform_post_id!, io, thread);
    } catch (error) {
      if (error instanceof PlatformError) {
        throw new AppError(
          'upstream',
          'platform_error',
          `${platform}: ${error.message}`,
          { platform, kind: error.kind },
          { cause: error },
        );
      }
      throw error;
    }
    // The state and events a copy gone from its platform takes (deleted-target.ts): post.platform.deleted
    // (this copy is gone) and post.cancelled, in the transaction that cancels (the outbox). A collection
    // that found the copy gone first has already done so: nothing is announced twice.
    const deletedAt = ctx.clock.now();
    await ctx.db.transaction((tx) =>
      markTargetDeleted(
        ctx,
        tx,
        { tenantId: caller.tenantId, postId, targetId: t.target_id, from: t.status },
        account,
        deletedAt,
      ),
    );
  }
}
