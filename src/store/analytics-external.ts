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

/** The account's external posts among `platformPostIds`, with the text Herald holds for each. */
export async function listExternalPosts(db: Executor, accountId: string, platformPostIds: string[]) {
  if (!platformPostIds.length) return [];
  return db
    .selectFrom('post_target as t')
    .innerJoin('post as p', 'p.post_id', 't.post_id')
    .select(['p.post_id', 't.platform_post_id', 'p.content'])
    .where('t.account_id', '=', accountId)
    .where('p.is_external', '=', 1)
    .where('t.platform_post_id', 'in', platformPostIds)
    .execute();
}

/** An external post's text as its platform now shows it. */
export async function setExternalContent(db: Executor, postId: string, content: string, iso: string): Promise<void> {
  await db
    .updateTable('post')
    .set({ content, updated_at: iso })
    .where('post_id', '=', postId)
    .where('is_external', '=', 1)
    .execute();
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

/** Whether a target of the account is being published or awaits an outcome (its platform id not known yet). */
export async function hasTargetsInFlight(db: Executor, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom('post_target')
    .select('target_id')
    .where('account_id', '=', accountId)
    .where('status', 'in', ['publishing', 'unknown', 'processing'])
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The account's published targets with their post's text, newest first (what Herald already holds). */
export async function listAccountPublished(db: Executor, accountId: string, limit: number) {
  return db
    .selectFrom('post_target as t')
    .innerJoin('post as p', 'p.post_id', 't.post_id')
    .select([
      't.platform',
      't.platform_post_id',
      't.platform_post_url',
      't.published_at',
      't.custom_content',
      'p.content',
      'p.media_items',
    ])
    .where('t.account_id', '=', accountId)
    .where('t.status', '=', 'published')
    .where('t.platform_post_id', 'is not', null)
    .orderBy('t.published_at', 'desc')
    .limit(limit)
    .execute();
}
