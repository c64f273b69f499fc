import type { AppContext } from '../../context.js';
import { newId } from '../../lib/ids.js';
import type { AccountCredentials, AnalyticsCapability, ListedPost, PlatformIO } from '../../platforms/types.js';
import {
  insertExternalPost,
  knownPlatformPostIds,
  listExternalPosts,
  setExternalContent,
  setExternalSynced,
} from '../../store/analytics-external.js';
import type { AccountRow } from '../../store/accounts.js';
import type { Executor } from '../../store/db.js';
import { findPost, listTargets } from '../../store/posts.js';
import { cancelGoneTarget, type GoneTarget } from '../posts/deleted-target.js';
import { newTargetRow } from '../posts/targets.js';
import { externalPostEventData } from '../present/post-event.js';
import { uncollected } from './track.js';

const DAY_MS = 86_400_000;
/** How far back the first sync of an account looks. */
const FIRST_SYNC_DAYS = 30;
/** Each sync looks again this far before the last one, for posts the platform listed late. */
const OVERLAP_MS = DAY_MS;
/**
 * A listed post younger than this is left for the next sync: Herald may be publishing it right now (its
 * target does not have the platform's id yet), and importing it would double it. The overlap brings it back.
 */
const SETTLE_MS = 3_600_000;
/** Most posts one sync imports (the rest come at the next). */
const EXTERNAL_PER_SYNC = 100;

/**
 * External posts (`source=external`): lists the account's recent posts on its platform and imports those
 * Herald has no target for (matched on the platform's post id, so Herald's own published targets and
 * posts imported before are never doubled) as published external posts, due a read at once; collection
 * then reads them on the schedule like the others. Runs with the daily account read.
 */
export async function syncExternalPosts(
  ctx: AppContext,
  account: AccountRow & { external_synced_at?: string | null },
  analytics: AnalyticsCapability,
  credentials: AccountCredentials,
  io: PlatformIO,
  now: Date,
): Promise<ListedImport> {
  if (!analytics.listPosts) return { imported: 0, updated: 0 };
  const last = account.external_synced_at
    ? new Date(account.external_synced_at).getTime() - OVERLAP_MS
    : now.getTime() - FIRST_SYNC_DAYS * DAY_MS;
  const listed = await analytics.listPosts(credentials, new Date(last), EXTERNAL_PER_SYNC, io);
  return importListedPosts(ctx, account, listed, now);
}

/** What one import of a listing changed: posts imported, and imported posts whose new text Herald took. */
export interface ListedImport {
  imported: number;
  updated: number;
}

/**
 * Imports the listed posts Herald has no target for, each with its `post.external.created` event, and
 * takes the new text of an imported one edited on the platform (`post.external.updated`), in one
 * transaction that also marks the account synced at `now`. `settleMs`: a post younger than this is left
 * for a later sync (Herald may be publishing it right now); the on-demand sync passes 0 when the account
 * has nothing in flight.
 */
export async function importListedPosts(
  ctx: AppContext,
  account: AccountRow,
  listed: ListedPost[],
  now: Date,
  settleMs = SETTLE_MS,
): Promise<ListedImport> {
  // In publish order: metrics_rollup's slots are locked in one order by every writer (collect.ts).
  const unique = [...new Map(listed.map((p) => [p.platformPostId, p])).values()].sort(
    (a, b) => a.publishedAt.getTime() - b.publishedAt.getTime(),
  );
  let imported = 0;
  let updated = 0;
  await ctx.db.transaction(async (tx) => {
    const known = await knownPlatformPostIds(
      tx,
      account.account_id,
      unique.map((p) => p.platformPostId),
    );
    // An external post listed with another text than Herald holds was edited on the platform.
    const external = new Map(
      (await listExternalPosts(tx, account.account_id, [...known])).map((r) => [r.platform_post_id, r]),
    );
    for (const p of unique) {
      const held = external.get(p.platformPostId);
      if (held && held.content !== p.content) {
        await setExternalContent(tx, held.post_id, p.content, now.toISOString());
        await ctx.events.emit(
          tx,
          account.tenant_id,
          'post.external.updated',
          externalPostEventData(account, p, p.media),
          now,
        );
        updated++;
      }
      if (
        known.has(p.platformPostId) ||
        p.publishedAt.getTime() > now.getTime() - settleMs ||
        Number.isNaN(p.publishedAt.getTime())
      )
        continue;
      await importPost(tx, account, p, now);
      // Announced with the import (the outbox): once per platform post, as its id is never imported twice.
      await ctx.events.emit(
        tx,
        account.tenant_id,
        'post.external.created',
        externalPostEventData(account, p, p.media),
        now,
      );
      imported++;
    }
    await setExternalSynced(tx, account.account_id, now.toISOString());
  });
  return { imported, updated };
}

/**
 * An imported external post its platform says no longer exists (deleted there), found at `deletedAt`:
 * it takes the state of a post whose copy is gone (its target and itself `cancelled`, so it is not read
 * again; kept, with its metrics) and `post.external.deleted` is announced with `post.deletedAt`, in the
 * caller's transaction. Compare-and-set on the target's status: false, and nothing announced, when
 * another collection got there first.
 */
export async function markExternalDeleted(
  ctx: AppContext,
  tx: Executor,
  account: AccountRow,
  gone: GoneTarget,
  deletedAt: Date,
): Promise<boolean> {
  const iso = deletedAt.toISOString();
  if (!(await cancelGoneTarget(tx, gone, iso))) return false;
  const post = await findPost(tx, gone.tenantId, gone.postId);
  const target = (await listTargets(tx, [gone.postId])).find((r) => r.target_id === gone.targetId);
  if (!post || !target?.platform_post_id) return true;
  const [media] = JSON.parse(post.media_items || '[]') as { type: 'image' | 'video'; url: string }[];
  const data = externalPostEventData(
    account,
    {
      platformPostId: target.platform_post_id,
      platformPostUrl: target.platform_post_url,
      content: post.content,
      publishedAt: new Date(target.published_at ?? post.published_at ?? iso),
    },
    media,
  );
  await ctx.events.emit(
    tx,
    account.tenant_id,
    'post.external.deleted',
    { ...data, post: { ...data.post, deletedAt: iso } },
    deletedAt,
  );
  return true;
}

async function importPost(
  tx: Parameters<typeof insertExternalPost>[0],
  account: AccountRow,
  p: ListedPost,
  now: Date,
): Promise<void> {
  const iso = now.toISOString();
  const published = p.publishedAt.toISOString();
  const media = p.media ? [{ type: p.media.type, url: p.media.url }] : [];
  const postId = newId(now);
  // The target as a new post's, then with the outcome the platform already had.
  const target = {
    ...newTargetRow(
      { post_id: postId, tenant_id: account.tenant_id },
      {
        account_id: account.account_id,
        profile_id: account.profile_id,
        platform: account.platform,
        position: 0,
        custom_content: null,
        custom_media: null,
        platform_specific_data: '{}',
        scheduled_for: null,
        status: 'published',
        content_hash: '',
      },
      now,
    ),
    platform_post_id: p.platformPostId,
    platform_post_url: p.platformPostUrl,
    published_at: published,
  };
  await insertExternalPost(
    tx,
    {
      post_id: postId,
      tenant_id: account.tenant_id,
      created_by: account.tenant_id,
      title: null,
      content: p.content,
      media_items: JSON.stringify(media),
      status: 'published',
      scheduled_for: null,
      timezone: 'UTC',
      published_at: published,
      tags: '[]',
      hashtags: '[]',
      mentions: '[]',
      visibility: null,
      metadata: '{}',
      options: '{}',
      queued_from_profile: null,
      queue_id: null,
      created_at: iso,
      updated_at: iso,
    },
    target,
    {
      target_id: target.target_id,
      tenant_id: account.tenant_id,
      post_id: postId,
      account_id: account.account_id,
      profile_id: account.profile_id,
      platform: account.platform,
      published_at: published,
      // Read at once (this collection run), then at the schedule's next age.
      next_collect_at: iso,
      ...uncollected(),
    },
  );
}
