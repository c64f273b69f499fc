import type { AppContext } from '../../context.js';
import { newId } from '../../lib/ids.js';
import type { Executor } from '../../store/db.js';
import { findAccounts, insertPost, insertTargets, type PostRow, type PostTargetRow } from '../../store/posts.js';
import { finishJob, listPostTargets, lockPost, rescheduleJobWithPayload } from '../../store/publishing.js';
import { findRecycling, insertRecycledCopy, updateRecycling } from '../../store/recycling.js';
import { armTargets } from '../posts/arm.js';
import { contentHash, newTargetRow } from '../posts/targets.js';
import type { MediaItemInput } from '../posts/types.js';
import { postEventData } from '../present/post-event.js';
import { copyContent, expired, nextSlotAfter } from './config.js';
import { configOf, rotationStart } from './state.js';

/**
 * The `post.recycle` job of one post: makes the copy of the next cycle, due at next_recycle_at. One
 * transaction locks the source post, re-reads its recycling row, writes the copy (a scheduled post with
 * its publish jobs), records it as cycle n (unique per source and cycle), advances the row, emits
 * `post.recycled`, and moves this job to the next cycle or deletes it. A worker killed before the commit
 * leaves nothing, and its successor makes the same cycle; after the commit, the row says the cycle is done.
 */
export async function runRecycleJob(
  ctx: AppContext,
  job: { jobId: string; workerId: string; postId: string },
): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const source = await lockPost(tx, job.postId);
    const row = source ? await findRecycling(tx, job.postId) : undefined;
    if (!source || !row || row.active !== 1 || row.next_recycle_at === null)
      return finishJob(tx, job.jobId, job.workerId);
    // An unpublished source (cancelled) is not posted again.
    if (source.status === 'cancelled') {
      await updateRecycling(tx, source.post_id, { active: 0, next_recycle_at: null, updated_at: now.toISOString() });
      return finishJob(tx, job.jobId, job.workerId);
    }
    const due = new Date(row.next_recycle_at);
    // A PUT moved the rotation while this job was claimed: follow the row.
    if (due.getTime() > now.getTime())
      return rescheduleJobWithPayload(tx, job.jobId, job.workerId, due, { postId: job.postId }, null);

    const config = configOf(row);
    const cycle = row.recycle_count + 1;
    const { content, nextIndex } = copyContent(config, row.variation_index, source.content);
    const made = await makeCopy(tx, source, content, due, now);
    if (made) await insertRecycledCopy(tx, { post_id: made.post.post_id, source_post_id: source.post_id, cycle });

    const next = nextSlotAfter(rotationStart(config, source, now), config, source.timezone, now);
    // No account left to post to ends the rotation, like its expiry.
    const over = !made || expired(config, cycle, next);
    await updateRecycling(tx, source.post_id, {
      recycle_count: made ? cycle : row.recycle_count,
      variation_index: made ? nextIndex : row.variation_index,
      last_recycled_at: made ? now.toISOString() : row.last_recycled_at,
      next_recycle_at: over ? null : next.toISOString(),
      active: over ? 0 : 1,
      updated_at: now.toISOString(),
    });
    if (made) {
      const data = postEventData(made.post, made.targets);
      await ctx.events.emit(
        tx,
        source.tenant_id,
        'post.recycled',
        { post: { ...data.post, recycledFromPostId: source.post_id } },
        now,
      );
    }
    if (over) await finishJob(tx, job.jobId, job.workerId);
    else await rescheduleJobWithPayload(tx, job.jobId, job.workerId, next, { postId: job.postId }, null);
  });
}

/**
 * The copy: the source's fields and targets (custom content, media and options kept) with `content`, a
 * scheduled post at `at` whose publish jobs are armed in this transaction. Targets whose account is gone
 * are left out; null when none is left.
 */
async function makeCopy(
  tx: Executor,
  source: PostRow,
  content: string,
  at: Date,
  now: Date,
): Promise<{ post: PostRow; targets: PostTargetRow[] } | null> {
  const sourceTargets = await listPostTargets(tx, source.post_id);
  const accounts = new Set(
    (
      await findAccounts(
        tx,
        source.tenant_id,
        sourceTargets.map((t) => t.account_id),
      )
    ).map((a) => a.account_id),
  );
  const kept = sourceTargets.filter((t) => accounts.has(t.account_id) && t.status !== 'cancelled');
  if (kept.length === 0) return null;
  const iso = now.toISOString();
  const post: PostRow = {
    ...source,
    post_id: newId(now),
    content,
    status: 'scheduled',
    scheduled_for: at.toISOString(),
    published_at: null,
    queued_from_profile: null,
    queue_id: null,
    created_at: iso,
    updated_at: iso,
  };
  const media = JSON.parse(source.media_items) as MediaItemInput[];
  const targets: PostTargetRow[] = kept.map((t, position) => {
    const psd = JSON.parse(t.platform_specific_data) as Record<string, unknown>;
    const tMedia = t.custom_media ? (JSON.parse(t.custom_media) as MediaItemInput[]) : media;
    return newTargetRow(
      post,
      {
        account_id: t.account_id,
        profile_id: t.profile_id,
        platform: t.platform,
        position,
        custom_content: t.custom_content,
        custom_media: t.custom_media,
        platform_specific_data: t.platform_specific_data,
        scheduled_for: null,
        status: 'pending',
        content_hash: contentHash(psd, t.custom_content ?? content, tMedia),
      },
      now,
    );
  });
  await insertPost(tx, post);
  await insertTargets(tx, targets);
  await armTargets(tx, targets, at, now);
  return { post, targets };
}
