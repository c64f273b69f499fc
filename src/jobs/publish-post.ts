import type { AppContext } from '../context.js';
import { runPublishJob } from '../domain/publishing/publish-target.js';
import { PUBLISH_TASK } from '../domain/publishing/schedule.js';
import type { JobRunner } from './runner.js';

/**
 * `post.publish` (payload `{targetId}`): publishes one target. The engine finishes or reschedules its own
 * job row in the transaction that records the outcome, hence 'handled'. A thrown error (database down)
 * leaves the job to the runner's backoff; the next run re-reads the target, so nothing happens twice.
 */
export function registerPublishPost(runner: JobRunner, ctx: AppContext): void {
  runner.register(PUBLISH_TASK, async (run) => {
    const { targetId, checks = 0, paced } = run.payload;
    await runPublishJob(ctx, {
      jobId: run.job.job_id,
      workerId: run.workerId,
      payload: { targetId, checks, ...(paced !== undefined ? { paced } : {}) },
      signal: run.signal,
    });
    return 'handled';
  });
}
