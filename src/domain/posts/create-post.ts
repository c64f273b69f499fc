import type { AppContext } from '../../context.js';
import { invalidFields } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import type { Executor } from '../../store/db.js';
import { insertPost, insertTargets, lockTenantPosts, type PostRow } from '../../store/posts.js';
import { postEventData } from '../present/post-event.js';
import type { PostView } from '../present/posts.js';
import type { Principal } from '../principal.js';
import { assignQueueSlot } from '../queue/assign.js';
import { mergeRecycling } from '../recycling/config.js';
import { applyRecycling } from '../recycling/state.js';
import { armTargets } from './arm.js';
import { assertMonthlyPostQuota, assertNoDuplicates } from './plan-rules.js';
import { assertTimeZone, parseTime, resolveSchedule, type ScheduleDecision } from './schedule.js';
import { uploadDurations } from '../media/resolve.js';
import { checkTargetAccounts, normaliseTargets, targetRows, type ResolvedTarget } from './targets.js';
import type { MediaItemInput, PostInput } from './types.js';
import { throwIfInvalid, validatePost } from './validate/index.js';

export const MESSAGES = {
  draft: 'Post saved as draft',
  scheduled: 'Post scheduled successfully',
  publishing: 'Post accepted for publishing',
} as const;

/** A create request checked against everything that needs no transaction: what `storePost` writes. */
export interface PreparedPost {
  input: PostInput;
  now: Date;
  timezone: string;
  decision: ScheduleDecision;
  isDraft: boolean;
  targets: ResolvedTarget[];
  content: string;
  media: MediaItemInput[];
  status: 'draft' | 'scheduled' | 'publishing';
  at: Date | null;
  durations: Map<string, number> | undefined;
}

/**
 * Creates a post in one of the creation modes (see `resolveSchedule`). Everything is checked before
 * the transaction writes anything; the post, its targets, their publish jobs, its recycling and the
 * `post.scheduled` event are written together or not at all.
 */
export async function createPost(
  ctx: AppContext,
  caller: Principal,
  input: PostInput,
): Promise<{ view: PostView; message: string }> {
  const prepared = await preparePost(ctx, caller, input);
  return ctx.db.transaction((tx) => storePost(ctx, tx, caller, prepared));
}

/**
 * The checks of a create that read nothing in a transaction: time zone and mode, targets, and every
 * platform rule of a post that will be published (drafts are checked when they are scheduled).
 */
export async function preparePost(ctx: AppContext, caller: Principal, input: PostInput): Promise<PreparedPost> {
  const now = ctx.clock.now();
  const timezone = input.timezone || 'UTC';
  assertTimeZone(timezone);
  let decision = resolveSchedule({ ...input, timezone }, now);
  if (decision.kind === 'none') decision = { kind: 'draft' };
  const isDraft = decision.kind === 'draft';
  const platforms = input.platforms ?? [];
  if (!isDraft && platforms.length === 0) {
    throw invalidFields('platforms is required unless the post is a draft', {
      platforms: ['at least one platform is required'],
    });
  }
  const targets = normaliseTargets(platforms, { timezone, tiktokSettings: input.tiktokSettings });
  const content = input.content ?? '';
  const media = input.mediaItems ?? [];
  // Drafts may be incomplete: they are validated when they are scheduled.
  let durations: Map<string, number> | undefined;
  if (!isDraft) {
    const { issues, probes } = await validatePost(
      {
        content,
        title: input.title ?? null,
        mediaItems: media,
        platforms: targets.map((t) => ({ ...t.input, platformSpecificData: t.platformSpecificData })),
      },
      { ctx, tenantId: caller.tenantId },
    );
    throwIfInvalid(issues);
    durations = uploadDurations(probes);
  }
  // Its shape is checked before anything is written; the account limit and platforms in the transaction.
  if (input.recycling) mergeRecycling(null, input.recycling, timezone);
  const draftTime = isDraft && input.scheduledFor ? parseTime(input.scheduledFor, timezone, 'scheduledFor') : null;
  const status = isDraft ? 'draft' : decision.kind === 'at' || decision.kind === 'queue' ? 'scheduled' : 'publishing';
  const at = decision.kind === 'at' || decision.kind === 'now' ? decision.at : draftTime;
  return { input, now, timezone, decision, isDraft, targets, content, media, status, at, durations };
}

/**
 * The transactional half of a create, in the caller's transaction `tx`: the plan's monthly quota, the
 * targets' accounts, the queue slot, duplicates, then the writes. Throws before writing when a check fails.
 */
export async function storePost(
  ctx: AppContext,
  tx: Executor,
  caller: Principal,
  prepared: PreparedPost,
): Promise<{ view: PostView; message: string }> {
  const { input, now, timezone, isDraft, targets, content, media, status, durations } = prepared;
  let { decision, at } = prepared;
  await lockTenantPosts(ctx.db, tx, caller.tenantId);
  await assertMonthlyPostQuota(tx, caller, now);
  const accounts = await checkTargetAccounts(tx, caller, targets, { accountRules: !isDraft, media, durations });
  // A queued post takes the next free slot of its queue, claimed in this transaction (queue/assign.ts).
  const queued = decision.kind === 'queue' ? await assignQueueSlot(tx, caller, decision, now) : null;
  if (queued) decision = { kind: 'at', at: (at = queued.scheduledFor) };
  const iso = now.toISOString();
  const post: PostRow = {
    post_id: newId(now),
    tenant_id: caller.tenantId,
    created_by: caller.userId,
    title: input.title ?? null,
    content,
    media_items: JSON.stringify(media),
    status,
    scheduled_for: at ? at.toISOString() : null,
    timezone,
    published_at: null,
    tags: JSON.stringify(input.tags ?? []),
    hashtags: JSON.stringify(input.hashtags ?? []),
    mentions: JSON.stringify(input.mentions ?? []),
    visibility: input.visibility ?? null,
    metadata: JSON.stringify(input.metadata ?? {}),
    options: JSON.stringify({
      crosspostingEnabled: input.crosspostingEnabled ?? true,
      ...(input.tiktokSettings ? { tiktokSettings: input.tiktokSettings } : {}),
    }),
    queued_from_profile: queued?.profileId ?? null,
    queue_id: queued?.queueId ?? null,
    created_at: iso,
    updated_at: iso,
  };
  const rows = targetRows({ post_id: post.post_id, tenant_id: post.tenant_id, content, media }, targets, accounts, now);
  if (!isDraft) await assertNoDuplicates(tx, caller.tenantId, rows, now, null);
  await insertPost(tx, post);
  await insertTargets(tx, rows);
  const recycling = await applyRecycling(tx, post, rows, input.recycling, now);
  if (decision.kind === 'at' || decision.kind === 'now') {
    await armTargets(tx, rows, decision.at, now, { ignoreOwnTimes: input.publishNow === true });
  }
  if (decision.kind === 'at') {
    await ctx.events.emit(tx, caller.tenantId, 'post.scheduled', postEventData(post, rows), now);
  }
  return { view: { post, targets: rows, accounts, recycling }, message: MESSAGES[status] };
}
