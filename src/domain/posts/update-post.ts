import type { AppContext } from '../../context.js';
import { AppError, conflict, invalidFields } from '../../errors.js';
import type { Executor } from '../../store/db.js';
import {
  deleteTargets,
  insertTargets,
  leasedJobKeys,
  lockTenantPosts,
  updatePost as updatePostRow,
  updateTarget,
  type PostRow,
  type PostTargetRow,
} from '../../store/posts.js';
import { postEventData } from '../present/post-event.js';
import type { PostView } from '../present/posts.js';
import { publishJobKey } from '../publishing/schedule.js';
import type { Principal } from '../principal.js';
import { armTargets, disarmTargets } from './arm.js';
import { MESSAGES } from './create-post.js';
import { assertNotPublishing, outcomeUnknownError, unknownTargets } from './guards.js';
import { applyRecycling } from '../recycling/state.js';
import { updateRecyclingOnly } from '../recycling/update-recycling.js';
import { assertNoDuplicates } from './plan-rules.js';
import { assertTimeZone, resolveSchedule, type ScheduleDecision } from './schedule.js';
import { uploadDurations } from '../media/resolve.js';
import type { MediaProbe } from '../media/types.js';
import { checkTargetAccounts, contentHash, normaliseTargets, targetRows, type ResolvedTarget } from './targets.js';
import type { MediaItemInput, PostInput } from './types.js';
import { throwIfInvalid, validatePost, type PostDraft } from './validate/index.js';
import { loadPost, loadPostForUpdate, withAccounts } from './views.js';

const EDITABLE = ['draft', 'scheduled', 'failed'];

type Loaded = { post: PostRow; targets: PostTargetRow[] };

/** What the update asks for, decided from the request and the post as it is. */
interface UpdatePlan {
  decision: ScheduleDecision;
  nextStatus: string;
  timezone: string;
  content: string;
  media: MediaItemInput[];
  /** The new targets when `platforms` is given; null keeps the current ones. */
  requested: ResolvedTarget[] | null;
  /** Probed durations of Herald's uploads among the new targets' media, by URL (see checkTargetAccounts). */
  durations?: Map<string, number>;
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
  // Recycling alone may change on any post: it is how a published post's recycling is changed or turned off.
  const keys = Object.keys(input).filter((k) => input[k as keyof PostInput] !== undefined);
  if (input.recycling && keys.length === 1 && !EDITABLE.includes(current.post.status)) {
    return updateRecyclingOnly(ctx, caller, postId, input.recycling);
  }
  assertEditable(current);
  const plan = planUpdate(current, input, now);
  const probes = await validateUpdate(ctx, caller, current, plan, input);
  if (plan.requested && probes) plan.durations = uploadDurations(probes);

  return ctx.db.transaction(async (tx) => {
    if (plan.nextStatus !== 'draft') await lockTenantPosts(ctx.db, tx, caller.tenantId);
    const fresh = await loadPostForUpdate(tx, caller, postId);
    assertUnchanged(current, fresh);
    const targets = plan.requested
      ? await replaceTargets(tx, caller, fresh, plan, now)
      : await rehashTargets(tx, fresh, plan, now);
    if (plan.nextStatus !== 'draft') await assertNoDuplicates(tx, caller.tenantId, targets, now, postId);
    const patch = postPatch(fresh.post, input, plan, now);
    await updatePostRow(tx, caller.tenantId, postId, patch);
    const updated: PostRow = { ...fresh.post, ...patch };
    await rearm(tx, plan, targets, input, now);
    // The new recycling, or the current one checked against the targets the post now has.
    await applyRecycling(tx, updated, targets, input.recycling, now);
    // post.scheduled fires when a draft or failed post becomes scheduled (a reschedule is not a new event).
    if (plan.nextStatus === 'scheduled' && current.post.status !== 'scheduled') {
      await ctx.events.emit(tx, caller.tenantId, 'post.scheduled', postEventData(updated, targets), now);
    }
    const [view] = await withAccounts(tx, caller.tenantId, [{ post: updated, targets }]);
    const next = plan.nextStatus;
    const message =
      next === 'draft' || next === 'scheduled' || next === 'publishing' ? MESSAGES[next] : 'Post updated successfully';
    return { view, message };
  });
}

function assertEditable({ post, targets }: Loaded): void {
  assertNotPublishing(post, targets);
  if (!EDITABLE.includes(post.status)) {
    throw new AppError('invalid', 'post_not_editable', `A ${post.status} post cannot be edited`, {
      status: post.status,
    });
  }
}

/** The post's next status and time, and the content and targets it will have. */
function planUpdate({ post }: Loaded, input: PostInput, now: Date): UpdatePlan {
  const timezone = input.timezone ?? post.timezone;
  assertTimeZone(timezone);
  let decision: ScheduleDecision = resolveSchedule({ ...input, timezone }, now);
  // queuedFromProfile applies when a post is created; on update it keeps the current schedule.
  if (decision.kind === 'none' || decision.kind === 'queue') {
    // Keep the current state: a scheduled post keeps its time, a draft stays a draft, a failed post stays failed.
    if (post.status === 'scheduled' && post.scheduled_for) decision = { kind: 'at', at: new Date(post.scheduled_for) };
  }
  const nextStatus =
    decision.kind === 'draft'
      ? 'draft'
      : decision.kind === 'at'
        ? 'scheduled'
        : decision.kind === 'now'
          ? 'publishing'
          : post.status;
  return {
    decision,
    nextStatus,
    timezone,
    content: input.content ?? post.content,
    media: input.mediaItems ?? (JSON.parse(post.media_items) as MediaItemInput[]),
    requested:
      input.platforms !== undefined
        ? normaliseTargets(input.platforms, { timezone, tiktokSettings: input.tiktokSettings })
        : null,
  };
}

/**
 * A post that will be published is validated as a whole, with the targets it will have. Answers what
 * validation probed of its uploads (null for a draft, which is not validated).
 */
async function validateUpdate(
  ctx: AppContext,
  caller: Principal,
  current: Loaded,
  plan: UpdatePlan,
  input: PostInput,
): Promise<Map<string, MediaProbe> | null> {
  if (plan.nextStatus === 'draft') return null;
  const drafts: PostDraft['platforms'] = plan.requested
    ? plan.requested.map((t) => ({ ...t.input, platformSpecificData: t.platformSpecificData }))
    : current.targets.map((t) => ({
        platform: t.platform,
        customContent: t.custom_content,
        customMedia: t.custom_media ? (JSON.parse(t.custom_media) as MediaItemInput[]) : null,
        platformSpecificData: JSON.parse(t.platform_specific_data) as Record<string, unknown>,
      }));
  if (drafts.length === 0)
    throw invalidFields('platforms is required unless the post is a draft', {
      platforms: ['at least one platform is required'],
    });
  const title = input.title !== undefined ? input.title : current.post.title;
  const { issues, probes } = await validatePost(
    { content: plan.content, title, mediaItems: plan.media, platforms: drafts },
    { ctx, tenantId: caller.tenantId },
  );
  throwIfInvalid(issues);
  return probes;
}

function assertUnchanged(read: Loaded, fresh: Loaded): void {
  if (fresh.post.updated_at !== read.post.updated_at || fresh.targets.length !== read.targets.length) {
    throw conflict('post_modified', 'The post changed while it was being updated; retry');
  }
  assertNotPublishing(fresh.post, fresh.targets);
}

/** `platforms` given: the old targets and their jobs go, new `pending` targets take their place. */
async function replaceTargets(
  tx: Executor,
  caller: Principal,
  fresh: Loaded,
  plan: UpdatePlan,
  now: Date,
): Promise<PostTargetRow[]> {
  // A thread that stopped part way is public already: replacing its target would post its root again.
  const partlyPublic = fresh.targets.find((t) => t.thread_progress !== null && t.platform_post_id !== null);
  if (partlyPublic) {
    throw conflict(
      'post_partly_published',
      `Part of this post is already public on ${partlyPublic.platform} (a thread that stopped part way): retry the post to finish it, or unpublish it, instead of replacing its platforms`,
      { platform: partlyPublic.platform, platformPostId: partlyPublic.platform_post_id },
    );
  }
  // Replacing a target whose outcome is unknown would forget a post that may be public, and send it again.
  const unknown = unknownTargets(fresh.targets);
  if (unknown.length > 0)
    throw outcomeUnknownError(fresh.post.post_id, unknown, 'The platforms of this post cannot be replaced');
  const requested = plan.requested!;
  const accounts = await checkTargetAccounts(tx, caller, requested, {
    accountRules: plan.nextStatus !== 'draft',
    media: plan.media,
    durations: plan.durations,
  });
  await disarmTargets(tx, fresh.targets);
  await deleteTargets(
    tx,
    fresh.targets.map((t) => t.target_id),
  );
  const { post } = fresh;
  const targets = targetRows(
    { post_id: post.post_id, tenant_id: post.tenant_id, content: plan.content, media: plan.media },
    requested,
    accounts,
    now,
  );
  await insertTargets(tx, targets);
  return targets;
}

/** Current targets kept: their hash follows the new content, and a failed one goes back to `pending` when the post is scheduled again. */
async function rehashTargets(tx: Executor, fresh: Loaded, plan: UpdatePlan, now: Date): Promise<PostTargetRow[]> {
  const iso = now.toISOString();
  const rescheduling = plan.nextStatus === 'scheduled' || plan.nextStatus === 'publishing';
  const targets = fresh.targets.map((t) => {
    const psd = JSON.parse(t.platform_specific_data) as Record<string, unknown>;
    const text = t.custom_content ?? plan.content;
    const tMedia = t.custom_media ? (JSON.parse(t.custom_media) as MediaItemInput[]) : plan.media;
    const patch: Partial<PostTargetRow> = { content_hash: contentHash(psd, text, tMedia), updated_at: iso };
    if (rescheduling && t.status === 'failed') {
      Object.assign(patch, {
        status: 'pending',
        error_message: null,
        error_category: null,
        error_source: null,
        error_code: null,
      });
    }
    return { ...t, ...patch };
  });
  for (const t of targets) await updateTarget(tx, t.target_id, t);
  return targets;
}

/** The post row's changes: the given fields, the status and the time. */
function postPatch(post: PostRow, input: PostInput, plan: UpdatePlan, now: Date): Partial<PostRow> {
  const { decision } = plan;
  const options = JSON.parse(post.options) as Record<string, unknown>;
  if (input.crosspostingEnabled !== undefined) options.crosspostingEnabled = input.crosspostingEnabled;
  if (input.tiktokSettings !== undefined) options.tiktokSettings = input.tiktokSettings;
  return {
    content: plan.content,
    media_items: JSON.stringify(plan.media),
    status: plan.nextStatus,
    timezone: plan.timezone,
    updated_at: now.toISOString(),
    options: JSON.stringify(options),
    ...(input.title !== undefined ? { title: input.title } : {}),
    ...(input.tags !== undefined ? { tags: JSON.stringify(input.tags) } : {}),
    ...(input.hashtags !== undefined ? { hashtags: JSON.stringify(input.hashtags) } : {}),
    ...(input.mentions !== undefined ? { mentions: JSON.stringify(input.mentions) } : {}),
    ...(input.visibility !== undefined ? { visibility: input.visibility } : {}),
    ...(input.metadata !== undefined ? { metadata: JSON.stringify(input.metadata) } : {}),
    ...(decision.kind === 'at' || decision.kind === 'now' ? { scheduled_for: decision.at.toISOString() } : {}),
  };
}

/** The publish jobs follow the new time (pending targets), or go when the post becomes a draft. */
async function rearm(
  tx: Executor,
  plan: UpdatePlan,
  targets: PostTargetRow[],
  input: PostInput,
  now: Date,
): Promise<void> {
  const { decision } = plan;
  if (decision.kind === 'at' || decision.kind === 'now') {
    const due = targets.filter((t) => t.status === 'pending');
    // NOTE: a scheduled or publishing post needs a job to leave that state. Without a pending target
    // it would wait for nothing, forever (and a publishing one would refuse every later change).
    if (due.length === 0) {
      const unknown = unknownTargets(targets);
      if (unknown.length > 0)
        throw outcomeUnknownError(targets[0].post_id, unknown, 'The post cannot be scheduled again yet');
      throw conflict(
        'nothing_to_publish',
        'The post has no target left to publish: every target is published or cancelled',
        {
          statuses: targets.map((t) => ({ platform: t.platform, status: t.status })),
        },
      );
    }
    await armTargets(tx, due, decision.at, now, { ignoreOwnTimes: input.publishNow === true });
    // A job a worker has already claimed cannot be moved: the publish is under way.
    if (
      (
        await leasedJobKeys(
          tx,
          targets.map((t) => publishJobKey(t.target_id)),
          now.toISOString(),
        )
      ).length > 0
    ) {
      throw conflict('post_publishing', 'The post is being published right now; try again when it has finished');
    }
  } else if (plan.nextStatus === 'draft') {
    await disarmTargets(tx, targets);
  }
}
