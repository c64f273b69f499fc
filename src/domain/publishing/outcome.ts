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
import { trackPublishedTarget } from '../analytics/track.js';
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
  const status = derivePostStatus(targets);
  if (!status || status === post.status) return;
  const iso = now.toISOString();
  const publishedAt =
    status === 'published' || status === 'partial'
      ? (post.published_at ?? latestPublishedAt(targets) ?? iso)
      : post.published_at;
  const moved = await movePost(tx, postId, post.status, { status, published_at: publishedAt, updated_at: iso });
  if (!moved || status === 'publishing') return;
  const updated = { ...post, status, published_at: publishedAt, updated_at: iso };
  await ctx.events.emit(tx, post.tenant_id, `post.${status}`, postEventData(updated, targets), now);
  // A recycling post starts its rotation once it is out (partly out counts: something went public).
  if (status === 'published' || status === 'partial') await startRecycling(tx, updated, now);
}

function latestPublishedAt(targets: TargetRow[]): string | null {
  const times = targets.map((t) => t.published_at).filter((t): t is string => t !== null);
  return times.length ? times.sort()[times.length - 1] : null;
}
