import type { AppContext } from '../context.js';
import { runProcessingCheck } from '../domain/publishing/engine/processing.js';
import { PROCESSING_CHECK_TASK } from '../domain/publishing/schedule.js';
import type { JobRunner } from './runner.js';

/**
 * `post.check-processing` (payload `{targetId, checks, errors}`): asks the platform whether the media of a
 * `processing` target are ready. Like `post.publish`, the engine finishes or reschedules its own row in
 * the transaction that records what it learnt, hence 'handled'.
 */
export function registerCheckProcessingPost(runner: JobRunner, ctx: AppContext): void {
  runner.register(PROCESSING_CHECK_TASK, async (run) => {
    const { targetId, checks = 0, errors = 0 } = run.payload;
    await runProcessingCheck(ctx, {
      jobId: run.job.job_id,
      workerId: run.workerId,
      payload: { targetId, checks, errors },
      signal: run.signal,
    });
    return 'handled';
  });
}
