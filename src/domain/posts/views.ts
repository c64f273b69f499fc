import { notFound } from '../../errors.js';
import type { Executor } from '../../store/db.js';
import { findAccounts, findPost, listTargets, lockPost, type PostRow, type PostTargetRow } from '../../store/posts.js';
import { listRecycling, recycledSources } from '../../store/recycling.js';
import type { PostView } from '../present/posts.js';
import { canSeeProfile, type Principal } from '../principal.js';

/** A scoped caller sees a post only when every target is in its profiles (and it has targets). */
function canSeePost(caller: Principal, targets: PostTargetRow[]): boolean {
  if (caller.profileIds === null) return true;
  return targets.length > 0 && targets.every((t) => canSeeProfile(caller, t.profile_id));
}

/** Loads a post of the caller with its targets; another tenant's or an invisible post is a 404. */
export async function loadPost(
  db: Executor,
  caller: Principal,
  postId: string,
): Promise<{ post: PostRow; targets: PostTargetRow[] }> {
  const post = await findPost(db, caller.tenantId, postId);
  if (!post) throw notFound('Post', 'post_not_found');
  const targets = await listTargets(db, [postId]);
  if (!canSeePost(caller, targets)) throw notFound('Post', 'post_not_found');
  return { post, targets };
}

/** `loadPost` inside a transaction that will change the post: takes the post's row lock first. */
export async function loadPostForUpdate(
  tx: Executor,
  caller: Principal,
  postId: string,
): Promise<{ post: PostRow; targets: PostTargetRow[] }> {
  const post = await lockPost(tx, caller.tenantId, postId);
  if (!post) throw notFound('Post', 'post_not_found');
  const targets = await listTargets(tx, [postId]);
  if (!canSeePost(caller, targets)) throw notFound('Post', 'post_not_found');
  return { post, targets };
}

/** Attaches the accounts the targets point at (for `platforms[].accountId`) and the posts' recycling. */
export async function withAccounts(
  db: Executor,
  tenantId: string,
  posts: Array<{ post: PostRow; targets: PostTargetRow[] }>,
): Promise<PostView[]> {
  const ids = [...new Set(posts.flatMap((p) => p.targets.map((t) => t.account_id)))];
  const accounts = new Map((await findAccounts(db, tenantId, ids)).map((a) => [a.account_id, a]));
  const postIds = posts.map((p) => p.post.post_id);
  const recycling = new Map((await listRecycling(db, postIds)).map((r) => [r.post_id, r]));
  const sources = await recycledSources(db, postIds);
  return posts.map((p) => ({
    ...p,
    accounts,
    recycling: recycling.get(p.post.post_id),
    recycledFromPostId: sources.get(p.post.post_id),
  }));
}
