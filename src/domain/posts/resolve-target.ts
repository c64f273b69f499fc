import type { AppContext } from '../../context.js';
import { trackPublishedTarget } from '../analytics/track.js';
import { AppError, conflict, notFound } from '../../errors.js';
import { updateTarget, type PostTargetRow } from '../../store/posts.js';
import type { PostView } from '../present/posts.js';
import { failure } from '../publishing/failure.js';
import { derivePostStatus, updatePostStatus } from '../publishing/outcome.js';
import { emitTargetOutcome } from '../publishing/platform-events.js';
import type { Principal } from '../principal.js';
import { assertNotPublishing } from './guards.js';
import { loadPostForUpdate, withAccounts } from './views.js';

/** What a person found on the platform for a target whose outcome is unknown. */
export type ResolveInput =
  | { outcome: 'published'; platformPostUrl: string; platformPostId?: string }
  | { outcome: 'not_published' };

/** Error code of a target settled as not published: the duplicate rule ignores it (see store/posts.ts). */
const SETTLED_NOT_PUBLISHED = 'not_published';

/**
 * Settles a target whose outcome is unknown with what the caller saw on the platform. `published`
 * records the post's URL (and id) as a publish would; `not_published` makes the target an ordinary
 * failed one, which `retry` sends again and which no longer counts as a duplicate. The post status is
 * derived again, with the `post.published` / `post.partial` / `post.failed` event a publish would emit
 * when it changes (a draft only when something of it is now public). `ref` is the target's accountId, or its platform when the post has one target there.
 */
export async function resolveTarget(
  ctx: AppContext,
  caller: Principal,
  postId: string,
  ref: string,
  input: ResolveInput,
): Promise<PostView> {
  const now = ctx.clock.now();
  const iso = now.toISOString();
  return ctx.db.transaction(async (tx) => {
    const { post, targets } = await loadPostForUpdate(tx, caller, postId);
    assertNotPublishing(post, targets);
    const target = pickTarget(targets, ref);
    const patch: Partial<PostTargetRow> =
      input.outcome === 'published'
        ? {
            status: 'published',
            platform_post_url: input.platformPostUrl,
            // A thread root found earlier keeps its id unless the caller names another.
            platform_post_id: input.platformPostId ?? target.platform_post_id,
            published_at: iso,
            error_message: null,
            error_category: null,
            error_source: null,
            error_code: null,
            updated_at: iso,
          }
        : notPublishedPatch(target, iso);
    await updateTarget(tx, target.target_id, patch);
    if (input.outcome === 'published') await trackPublishedTarget(ctx, tx, target.target_id);
    const updated = targets.map((t) => (t.target_id === target.target_id ? { ...t, ...patch } : t));
    // A cancelled post stays cancelled, and a draft stays a draft while nothing of it is public: the
    // person chose those. Otherwise the post follows its targets, as after a publish.
    const derived = derivePostStatus(updated);
    const keep =
      post.status === 'cancelled' || (post.status === 'draft' && derived !== 'published' && derived !== 'partial');
    let updatedPost = post;
    if (!keep) {
      await updatePostStatus(ctx, tx, post, now);
      updatedPost = (await loadPostForUpdate(tx, caller, postId)).post;
    }
    // The target's own outcome, as a publish would announce it (post.platform.published / .failed).
    await emitTargetOutcome(ctx, tx, caller.tenantId, postId, target.target_id, now);
    const [view] = await withAccounts(tx, caller.tenantId, [{ post: updatedPost, targets: updated }]);
    return view;
  });
}

/** The one unknown target `ref` names (accountId first, then platform). */
function pickTarget(targets: PostTargetRow[], ref: string): PostTargetRow {
  const named = targets.filter((t) => t.account_id === ref);
  const matches = named.length > 0 ? named : targets.filter((t) => t.platform === ref);
  if (matches.length === 0) throw notFound('Target', 'target_not_found');
  const unknown = matches.filter((t) => t.status === 'unknown');
  if (unknown.length === 0) {
    const t = matches[0];
    throw conflict(
      'target_not_unknown',
      `The ${t.platform} target is ${t.status}: only a target whose outcome is unknown can be resolved`,
      {
        platform: t.platform,
        status: t.status,
      },
    );
  }
  if (unknown.length > 1) {
    throw new AppError(
      'invalid',
      'ambiguous_target',
      `The post has ${unknown.length} ${ref} targets whose outcome is unknown: name one by its accountId`,
      {
        accountIds: unknown.map((t) => t.account_id),
      },
    );
  }
  return unknown[0];
}

function notPublishedPatch(target: PostTargetRow, iso: string): Partial<PostTargetRow> {
  const f = failure(
    'unknown',
    `Settled as not published on ${target.platform} (checked on the platform after an unknown outcome). Retry the post to send it again.`,
    SETTLED_NOT_PUBLISHED,
  );
  return {
    status: 'failed',
    error_message: f.message,
    error_category: f.category,
    error_source: 'user',
    error_code: f.code,
    updated_at: iso,
  };
}
