import type { Executor } from '../../store/db.js';
import type { PostTargetRow } from '../../store/posts.js';
import { armPublishJobs, disarmPublishJobs } from '../publishing/schedule.js';

/**
 * Arms the publish job of each target, in the caller's transaction: at its own time when it has one
 * (a past one means now), else at `postAt`. `publishNow` passes `ignoreOwnTimes` so every target goes now.
 */
export async function armTargets(
  tx: Executor,
  targets: PostTargetRow[],
  postAt: Date,
  now: Date,
  opts: { ignoreOwnTimes?: boolean } = {},
): Promise<void> {
  const byTime = new Map<number, string[]>();
  for (const t of targets) {
    let at = !opts.ignoreOwnTimes && t.scheduled_for ? new Date(t.scheduled_for) : postAt;
    if (at.getTime() < now.getTime()) at = now;
    const list = byTime.get(at.getTime()) ?? [];
    list.push(t.target_id);
    byTime.set(at.getTime(), list);
  }
  for (const [at, ids] of byTime) await armPublishJobs(tx, ids, new Date(at), now);
}

export async function disarmTargets(tx: Executor, targets: PostTargetRow[]): Promise<void> {
  await disarmPublishJobs(
    tx,
    targets.map((t) => t.target_id),
  );
}
