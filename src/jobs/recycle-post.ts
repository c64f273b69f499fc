import type { AppContext } from '../context.js';
import { runRecycleJob } from '../domain/recycling/recycle-post.js';
import { RECYCLE_TASK } from '../domain/recycling/state.js';
import type { JobRunner } from './runner.js';

/**
 * `post.recycle` (payload `{postId}`): makes the next recycled copy of a post. The domain finishes or
 * moves its own job row in the transaction that writes the copy, hence 'handled'; a thrown error leaves
 * the job to the runner's backoff, and the rerun re-reads the post's recycling row.
 */
export function registerRecyclePost(runner: JobRunner, ctx: AppContext): void {
  runner.register(RECYCLE_TASK, async (run) => {
    await runRecycleJob(ctx, { jobId: run.job.job_id, workerId: run.workerId, postId: run.payload.postId });
    return 'handled';
  });
}
