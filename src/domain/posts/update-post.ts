import type { AppContext } from '../../context.js';
import { AppError, conflict, invalidFields } from '../../errors.js';
import { deleteTargets, insertTargets, leasedJobKeys, lockTenantPosts, updatePost as updatePostRow, updateTarget, type PostRow, type PostTargetRow } from '../../store/posts.js';
import { postEventData } from '../present/post-event.js';
import type { PostView } from '../present/posts.js';
import { publishJobKey } from '../publishing/schedule.js';
import type { Principal } from '../principal.js';
import { armTargets, disarmTargets } from './arm.js';
import { MESSAGES } from './create-post.js';
import { assertNoDuplicates } from './plan-rules.js';
import { assertTimeZone, resolveSchedule, type ScheduleDecision } from './schedule.js';
import { checkTargetAccounts, contentHash, normaliseTargets, targetRows } from './targets.js';
import type { MediaItemInput, PostInput } from './types.js';
import { throwIfInvalid, validatePost } from './validate/index.js';
import { loadPost, loadPostForUpdate, withAccounts } from './views.js';

const EDITABLE = ['draft', 'scheduled', 'failed'];

export function assertNotPublishing(post: PostRow, targets: PostTargetRow[]): void {
  if (post.status === 'publishing' || targets.some((t) => t.status === 'publishing')) {
    throw conflict('post_publishing', 'The post is being published right now; try again when it has finished');
  }
}

/**
 * Updates a draft, scheduled or failed post. Only the given fields change. A new time (or publishNow)
 * re-arms the publish jobs in the same transaction; isDraft disarms them. The checks run on a read
 * outside the transaction (validation may be slow); the transaction re-reads the post and refuses
 * with 409 if it changed in between.
 */
export async function updatePost(
  ctx: AppContext,
  caller: Principal,
  postId: string,
  input: PostInput,
): Promise<{ view: PostView; message: string }> {
  const now = ctx.clock.now();
  const current = await loadPost(ctx.db.kysely, caller, postId);
  const { post } = current;
  assertNotPublishing(post, current.targets);
  if (!EDITABLE.includes(post.status)) {
    throw new AppError('invalid', 'post_not_editable', `A ${post.status} post cannot be edited`, { status: post.status });
  }
  const timezone = input.timezone ?? post.timezone;
  assertTimeZone(timezone);
  let decision: ScheduleDecision = resolveSchedule({ ...input, timezone }, now);
  // queuedFromProfile applies when a post is created; on update it keeps the current schedule.
  if (decision.kind === 'none' || decision.kind === 'queue') {
    // Keep the current state: a scheduled post keeps its time, a draft stays a draft, a failed post stays failed.
    if (post.status === 'scheduled' && post.scheduled_for) decision = { kind: 'at', at: new Date(post.scheduled_for) };
  }
  const nextStatus =
    decision.kind === 'draft' ? 'draft' : decision.kind === 'at' ? 'scheduled' : decision.kind === 'now' ? 'publishing' : post.status;
  const content = input.content ?? post.content;
  const media: MediaItemInput[] = input.mediaItems ?? JSON.parse(post.media_items);
  const iso = now.toISOString();

  // The targets after the update: replaced when `platforms` is given, else the current ones re-hashed.
  const replacing = input.platforms !== undefined;
  const requested = replacing ? normaliseTargets(input.platforms!, { timezone, tiktokSettings: input.tiktokSettings }) : [];
  const drafts = replacing
    ? requested.map((t) => ({ ...t.input, platformSpecificData: t.platformSpecificData }))
    : current.targets.map((t) => ({
        platform: t.platform,
        customContent: t.custom_content,
        customMedia: t.custom_media ? (JSON.parse(t.custom_media) as MediaItemInput[]) : null,
        platformSpecificData: JSON.parse(t.platform_specific_data) as Record<string, unknown>,
      }));
  if (nextStatus !== 'draft') {
    if (drafts.length === 0) throw invalidFields('platforms is required unless the post is a draft', { platforms: ['at least one platform is required'] });
    throwIfInvalid(await validatePost({ content, mediaItems: media, platforms: drafts }, { ctx, tenantId: caller.tenantId }));
  }

  return ctx.db.transaction(async (tx) => {
    if (nextStatus !== 'draft') await lockTenantPosts(ctx.db, tx, caller.tenantId);
    const fresh = await loadPostForUpdate(tx, caller, postId);
    if (fresh.post.updated_at !== post.updated_at || fresh.targets.length !== current.targets.length) {
      throw conflict('post_modified', 'The post changed while it was being updated; retry');
    }
    assertNotPublishing(fresh.post, fresh.targets);
    let targets: PostTargetRow[];
    if (replacing) {
      // A thread that stopped part way is public already: replacing its target would post its root again.
      const partlyPublic = fresh.targets.find((t) => t.thread_progress !== null && t.platform_post_id !== null);
      if (partlyPublic) {
        throw conflict(
          'post_partly_published',
          `Part of this post is already public on ${partlyPublic.platform} (a thread that stopped part way): retry the post to finish it, or unpublish it, instead of replacing its platforms`,
          { platform: partlyPublic.platform, platformPostId: partlyPublic.platform_post_id },
        );
      }
      const accounts = await checkTargetAccounts(tx, caller, requested);
      await disarmTargets(tx, fresh.targets);
      await deleteTargets(tx, fresh.targets.map((t) => t.target_id));
      targets = targetRows({ post_id: post.post_id, tenant_id: post.tenant_id, content, media }, requested, accounts, now);
      await insertTargets(tx, targets);
    } else {
      const rescheduling = nextStatus === 'scheduled' || nextStatus === 'publishing';
      targets = fresh.targets.map((t) => {
        const psd = JSON.parse(t.platform_specific_data) as Record<string, unknown>;
        const text = t.custom_content ?? content;
        const tMedia = t.custom_media ? (JSON.parse(t.custom_media) as MediaItemInput[]) : media;
        const patch: Partial<PostTargetRow> = { content_hash: contentHash(psd, text, tMedia), updated_at: iso };
        // A failed target goes back to pending when its post is scheduled again.
        if (rescheduling && t.status === 'failed') {
          Object.assign(patch, { status: 'pending', error_message: null, error_category: null, error_source: null, error_code: null });
        }
        return { ...t, ...patch };
      });
      for (const t of targets) await updateTarget(tx, t.target_id, t);
    }
    if (nextStatus !== 'draft') await assertNoDuplicates(tx, caller.tenantId, targets, now, post.post_id);

    const patch: Partial<PostRow> = {
      content,
      media_items: JSON.stringify(media),
      status: nextStatus,
      timezone,
      updated_at: iso,
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.tags !== undefined ? { tags: JSON.stringify(input.tags) } : {}),
      ...(input.hashtags !== undefined ? { hashtags: JSON.stringify(input.hashtags) } : {}),
      ...(input.mentions !== undefined ? { mentions: JSON.stringify(input.mentions) } : {}),
      ...(input.visibility !== undefined ? { visibility: input.visibility } : {}),
      ...(input.metadata !== undefined ? { metadata: JSON.stringify(input.metadata) } : {}),
      ...(decision.kind === 'at' || decision.kind === 'now' ? { scheduled_for: decision.at.toISOString() } : {}),
    };
    const options = JSON.parse(post.options) as Record<string, unknown>;
    if (input.crosspostingEnabled !== undefined) options.crosspostingEnabled = input.crosspostingEnabled;
    if (input.tiktokSettings !== undefined) options.tiktokSettings = input.tiktokSettings;
    if (input.recycling !== undefined) options.recycling = input.recycling;
    patch.options = JSON.stringify(options);
    await updatePostRow(tx, caller.tenantId, postId, patch);
    const updated: PostRow = { ...fresh.post, ...patch };

    if (decision.kind === 'at' || decision.kind === 'now') {
      await armTargets(tx, targets.filter((t) => t.status === 'pending'), decision.at, now, { ignoreOwnTimes: input.publishNow === true });
      // A job a worker has already claimed cannot be moved: the publish is under way.
      if ((await leasedJobKeys(tx, targets.map((t) => publishJobKey(t.target_id)), iso)).length > 0) {
        throw conflict('post_publishing', 'The post is being published right now; try again when it has finished');
      }
    } else if (nextStatus === 'draft') {
      await disarmTargets(tx, targets);
    }
    // post.scheduled fires when a draft or failed post becomes scheduled (a reschedule is not a new event).
    if (nextStatus === 'scheduled' && post.status !== 'scheduled') {
      await ctx.events.emit(tx, caller.tenantId, 'post.scheduled', postEventData(updated, targets), now);
    }
    const [view] = await withAccounts(tx, caller.tenantId, [{ post: updated, targets }]);
    const message = nextStatus === 'draft' || nextStatus === 'scheduled' || nextStatus === 'publishing' ? MESSAGES[nextStatus] : 'Post updated successfully';
    return { view, message };
  });
}
