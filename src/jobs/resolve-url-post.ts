import type { AppContext } from '../context.js';
import { runLateUrl } from '../domain/publishing/late-url.js';
import { LATE_URL_TASK } from '../domain/publishing/schedule.js';
import type { JobRunner } from './runner.js';

/**
 * `post.resolve-url` (payload `{targetId, standIn, handle, since, checks}`): asks the platform again for
 * the public id and URL of a target published without them. The domain finishes or reschedules its own
 * row in the transaction that records what it learnt, hence 'handled'.
 */
export function registerResolveUrlPost(runner: JobRunner, ctx: AppContext): void {
  runner.register(LATE_URL_TASK, async (run) => {
    await runLateUrl(ctx, {
      jobId: run.job.job_id,
      workerId: run.workerId,
      payload: run.payload,
      signal: run.signal,
    });
    return 'handled';
  });
}
