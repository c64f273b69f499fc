import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../store/schema.js';
import { replaceHeldJob, upsertJob, type NewJob } from '../../store/jobs.js';
import { insertPublishLogs, type PublishLogRow } from '../../store/publish-logs.js';
import {
  finishJob,
  holdsJob,
  listPostTargets,
  lockPost,
  movePost,
  moveTarget,
  rescheduleJobWithPayload,
  type PostRow,
  type TargetRow,
} from '../../store/publishing.js';
import { trackPublishedTarget, trackPublishedTargets } from '../analytics/track.js';
import {
  findAccounts,
  finishJobs,
  heldJobs,
  listTargetsOfPosts,
  lockPosts,
  markTargetsPublished,
  movePosts,
  type PostMove,
} from '../../store/publishing-batch.js';
import { listRecycling } from '../../store/recycling.js';
import { postPlatformEventData } from '../present/post-event.js';
import type { EventType } from '../events.js';
import { ALONE, batcher, batchers } from './engine/batch.js';
import { postEventData } from '../present/post-event.js';
import { emitTargetOutcome } from './platform-events.js';
import { startRecycling } from '../recycling/state.js';

export type PostOutcomeStatus = 'publishing' | 'published' | 'failed' | 'partial';

/**
 * The post status its targets imply: `publishing` while any target is in flight (pending, publishing or
 * processing),
 * else `published` when every target is, `failed` when none is (an `unknown` target counts as not
 * published: it needs a person), `partial` otherwise. Cancelled targets do not count. null: no targets.
 */
export function derivePostStatus(targets: Pick<TargetRow, 'status'>[]): PostOutcomeStatus | null {
  const live = targets.filter((t) => t.status !== 'cancelled');
  if (live.length === 0) return null;
  if (live.some((t) => t.status === 'pending' || t.status === 'publishing' || t.status === 'processing'))
    return 'publishing';
  const published = live.filter((t) => t.status === 'published').length;
  if (published === live.length) return 'published';
  return published === 0 ? 'failed' : 'partial';
}

/**
 * What happens to the job row, in the same transaction as the target change: finished (and, with `then`,
 * the next job of the target armed: the processing check), or rescheduled with a new payload.
 */
export type JobNext =
  | { finish: true; then?: NewJob & { key: string } }
  | { retryAt: Date; payload: unknown; error: string };

export interface TargetChange {
  postId: string;
  targetId: string;
  /** The status the caller last saw; the change applies only if the target still has it. */
  from: string;
  patch: Partial<TargetRow> & { status: string };
}

/**
 * One engine transaction: locks the post, moves the target (conditionally), writes the log rows,
 * re-derives the post status and emits `post.published` / `post.failed` / `post.partial` when the post
 * just reached that outcome (and `post.platform.published` / `post.platform.failed` for the target), then finishes or reschedules the job. Returns whether the target moved.
 */
export async function commitTargetChange(
  ctx: AppContext,
  job: { jobId: string; workerId: string },
  change: TargetChange | null,
  logs: PublishLogRow[],
  next: JobNext,
): Promise<boolean> {
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    // A run that no longer holds its job (its lease ran out and another worker took the job over, or the
    // job was replaced) changes nothing: the target may be that newer run's claim by now, and an outcome
    // written over it left a target `pending` with no job while the newer run's post was public. What
    // the stale run did on the platform is still logged.
    if (!(await holdsJob(tx, job.jobId, job.workerId))) {
      if (logs.length) await insertPublishLogs(tx, logs);
      return false;
    }
    let moved = false;
    const post = change ? await lockPost(tx, change.postId) : undefined;
    if (change && post) {
      moved = await moveTarget(tx, change.targetId, change.from, { ...change.patch, updated_at: now.toISOString() });
      if (moved) await updatePostStatus(ctx, tx, post, now);
      // The target's own outcome (post.platform.*), with the post status just derived.
      if (moved) await emitTargetOutcome(ctx, tx, post.tenant_id, post.post_id, change.targetId, now);
      // Published: its metrics are collected from now on (analytics; own job lane, never in this path's way).
      if (moved && change.patch.status === 'published') await trackPublishedTarget(ctx, tx, change.targetId);
    }
    if (logs.length) await insertPublishLogs(tx, logs);
    if ('finish' in next) {
      await finishJob(tx, job.jobId, job.workerId);
      // The next job only when this run moved the target: a run that lost the race arms nothing. A row
      // of that key a worker still holds is replaced: that run (one that took over a job whose lease ran
      // out) read the target before this change and ends without acting on it, so leaving the row to it
      // left the target `pending` with no job at all.
      if (next.then && (moved || !change) && !(await upsertJob(tx, next.then, now)))
        await replaceHeldJob(tx, next.then, now);
    } else await rescheduleJobWithPayload(tx, job.jobId, job.workerId, next.retryAt, next.payload, next.error);
    return moved;
  });
}

/**
 * Re-derives the post status from its targets and emits the outcome event when the status changes to a
 * terminal one. `post` is the row the caller read under the post lock (`lockPost`); the conditional
 * update on its status makes the event happen once per outcome, whichever target finishes last.
 */
export async function updatePostStatus(
  ctx: AppContext,
  tx: Transaction<Database>,
  post: PostRow,
  now: Date,
): Promise<void> {
  const postId = post.post_id;
  const targets = await listPostTargets(tx, postId);
  const iso = now.toISOString();
  const next = nextPostStatus(post, targets, iso);
  if (!next) return;
  const { status, publishedAt } = next;
  const moved = await movePost(tx, postId, post.status, { status, published_at: publishedAt, updated_at: iso });
  if (!moved || status === 'publishing') return;
  const updated = { ...post, status, published_at: publishedAt, updated_at: iso };
  await ctx.events.emit(tx, post.tenant_id, `post.${status}`, postEventData(updated, targets), now);
  // A recycling post starts its rotation once it is out (partly out counts: something went public).
  if (status === 'published' || status === 'partial') await startRecycling(tx, updated, now);
}

/**
 * The status `post` moves to now that its targets are `targets`, with its publication time (kept once
 * set; else the latest target's, else now), or null when it stays as it is.
 */
function nextPostStatus(
  post: PostRow,
  targets: TargetRow[],
  iso: string,
): { status: PostOutcomeStatus; publishedAt: string | null } | null {
  const status = derivePostStatus(targets);
  if (!status || status === post.status) return null;
  const publishedAt =
    status === 'published' || status === 'partial'
      ? (post.published_at ?? latestPublishedAt(targets) ?? iso)
      : post.published_at;
  return { status, publishedAt };
}

function latestPublishedAt(targets: TargetRow[]): string | null {
  const times = targets.map((t) => t.published_at).filter((t): t is string => t !== null);
  return times.length ? times.sort()[times.length - 1] : null;
}

interface PublishedChange {
  job: { jobId: string; workerId: string };
  change: TargetChange;
  logs: PublishLogRow[];
}

/** The columns a send's success writes (engine/run.ts `publishedPatch`); another patch is not batched. */
const PUBLISHED_COLUMNS = new Set([
  'status',
  'platform_post_id',
  'platform_post_url',
  'first_comment_result',
  'published_at',
  'error_message',
  'error_category',
  'error_source',
  'error_code',
  'processing_handle',
  'processing_since',
]);

const commitAlone = (ctx: AppContext, c: PublishedChange) =>
  commitTargetChange(ctx, c.job, c.change, c.logs, { finish: true });

const publishBatcher = batchers<AppContext, PublishedChange, boolean>((ctx) =>
  batcher(
    (items) => commitPublishedMany(ctx, items),
    (c) => commitAlone(ctx, c),
  ),
);

/**
 * A send's success: `commitTargetChange` with the job finished. On PostgreSQL the successes of a worker's
 * sends that end together share one transaction of multi-row statements (about a dozen for the batch,
 * where each alone takes about twenty), with the same writes and events.
 */
export function commitPublished(
  ctx: AppContext,
  job: { jobId: string; workerId: string },
  change: TargetChange,
  logs: PublishLogRow[],
): Promise<boolean> {
  if (ctx.db.dialect !== 'postgres') return commitAlone(ctx, { job, change, logs });
  return publishBatcher(ctx, job.workerId)({ job, change, logs });
}

/** `commitTargetChange(..., {finish: true})` of many published targets, in one transaction. */
async function commitPublishedMany(ctx: AppContext, items: PublishedChange[]): Promise<Array<boolean | typeof ALONE>> {
  const count = (key: (c: PublishedChange) => string) => {
    const n = new Map<string, number>();
    for (const c of items) n.set(key(c), (n.get(key(c)) ?? 0) + 1);
    return (c: PublishedChange) => n.get(key(c))!;
  };
  const byTarget = count((c) => c.change.targetId);
  const byJob = count((c) => c.job.jobId);
  const batchable = (c: PublishedChange) =>
    c.change.from === 'publishing' &&
    c.change.patch.status === 'published' &&
    Object.keys(c.change.patch).every((k) => PUBLISHED_COLUMNS.has(k)) &&
    byTarget(c) === 1 &&
    byJob(c) === 1;
  const batch = items.filter(batchable);
  if (batch.length < 2) return items.map(() => ALONE);
  const moved = await ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const iso = now.toISOString();
    const workerId = batch[0].job.workerId;
    // Runs that no longer hold their job change nothing; what they did on the platform is still logged.
    const held = await heldJobs(
      tx,
      batch.map((c) => c.job.jobId),
      workerId,
    );
    const live = batch.filter((c) => held.has(c.job.jobId));
    const posts = await lockPosts(
      tx,
      live.map((c) => c.change.postId),
    );
    const changed = await markTargetsPublished(
      tx,
      live
        .filter((c) => posts.has(c.change.postId))
        .map((c) => ({
          targetId: c.change.targetId,
          platformPostId: c.change.patch.platform_post_id ?? null,
          platformPostUrl: c.change.patch.platform_post_url ?? null,
          firstCommentResult: c.change.patch.first_comment_result ?? null,
          publishedAt: c.change.patch.published_at ?? iso,
        })),
      iso,
    );
    const done = live.filter((c) => changed.has(c.change.targetId));
    await settlePosts(ctx, tx, done, posts, now);
    await insertPublishLogs(
      tx,
      batch.flatMap((c) => c.logs),
    );
    await finishJobs(
      tx,
      live.map((c) => c.job.jobId),
      workerId,
    );
    return changed;
  });
  return items.map((c) => (batch.includes(c) ? moved.has(c.change.targetId) : ALONE));
}

/**
 * For targets just published: their posts' statuses derived again (with `post.<status>` and recycling
 * when a post reached its outcome), then each target's `post.platform.published`, and collection.
 */
async function settlePosts(
  ctx: AppContext,
  tx: Transaction<Database>,
  done: PublishedChange[],
  posts: Map<string, PostRow>,
  now: Date,
): Promise<void> {
  if (done.length === 0) return;
  const iso = now.toISOString();
  const postIds = [...new Set(done.map((c) => c.change.postId))];
  const targets = await listTargetsOfPosts(tx, postIds);
  const moves: PostMove[] = [];
  for (const postId of postIds) {
    const post = posts.get(postId)!;
    const next = nextPostStatus(post, targets.get(postId) ?? [], iso);
    if (next) moves.push({ postId, from: post.status, ...next });
  }
  const movedPosts = await movePosts(tx, moves, iso);
  const current = new Map(posts);
  for (const m of moves)
    if (movedPosts.has(m.postId))
      current.set(m.postId, {
        ...posts.get(m.postId)!,
        status: m.status,
        published_at: m.publishedAt,
        updated_at: iso,
      });
  const outcomes = moves.filter((m) => movedPosts.has(m.postId) && m.status !== 'publishing');
  const recycling = new Set(
    (
      await listRecycling(
        tx,
        outcomes.filter((m) => m.status === 'published' || m.status === 'partial').map((m) => m.postId),
      )
    ).map((r) => r.post_id),
  );
  // Each published target as read after the move.
  const published = done
    .map((c) => targets.get(c.change.postId)?.find((t) => t.target_id === c.change.targetId))
    .filter((t) => t !== undefined);
  const accounts = await findAccounts(
    tx,
    published.map((t) => t.account_id),
  );
  // In the order a publish alone emits them: the post's outcome, then the target's.
  const events: { tenantId: string; type: EventType; data: Record<string, unknown> }[] = [];
  const announced = new Set<string>();
  for (const c of done) {
    const post = current.get(c.change.postId)!;
    const rows = targets.get(c.change.postId) ?? [];
    const outcome = outcomes.find((m) => m.postId === post.post_id);
    if (outcome && !announced.has(post.post_id)) {
      announced.add(post.post_id);
      events.push({
        tenantId: post.tenant_id,
        type: `post.${outcome.status}` as EventType,
        data: postEventData(post, rows),
      });
    }
    const target = rows.find((t) => t.target_id === c.change.targetId);
    if (target?.status === 'published')
      events.push({
        tenantId: post.tenant_id,
        type: 'post.platform.published',
        data: postPlatformEventData(post, rows, target, accounts.get(target.account_id), { status: 'published' }),
      });
  }
  await ctx.events.emitMany(tx, events, now);
  for (const postId of recycling) await startRecycling(tx, current.get(postId)!, now);
  await trackPublishedTargets(ctx, tx, published);
}
