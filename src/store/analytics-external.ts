import type { Executor } from './db.js';
import { insertPost, insertTargets, type PostRow, type PostTargetRow } from './posts.js';
import type { TargetMetricsRow } from './analytics.js';

/*
 * External posts (migration 0220): a post made on the platform outside Herald is kept as a published
 * post with one target and its target_metrics row, all marked is_external, so collection and the
 * analytics reads treat it like Herald's own.
 */

/** Which of `platformPostIds` the account already has a target for (Herald's own or imported before). */
export async function knownPlatformPostIds(
  db: Executor,
  accountId: string,
  platformPostIds: string[],
): Promise<Set<string>> {
  if (!platformPostIds.length) return new Set();
  const rows = await db
    .selectFrom('post_target')
    .select('platform_post_id')
    .where('account_id', '=', accountId)
    .where('platform_post_id', 'in', platformPostIds)
    .execute();
  return new Set(rows.map((r) => r.platform_post_id!));
}

export async function insertExternalPost(
  db: Executor,
  post: PostRow,
  target: PostTargetRow,
  metrics: TargetMetricsRow,
): Promise<void> {
  await insertPost(db, { ...post, is_external: 1 });
  await insertTargets(db, [target]);
  await db
    .insertInto('target_metrics')
    .values({ ...metrics, is_external: 1 })
    .execute();
}

export async function setExternalSynced(db: Executor, accountId: string, iso: string): Promise<void> {
  await db.updateTable('account').set({ external_synced_at: iso }).where('account_id', '=', accountId).execute();
}
