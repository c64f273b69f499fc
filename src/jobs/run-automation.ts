import type { AppContext } from '../context.js';
import { AUTOMATION_TASK, runAutomationStep } from '../domain/inbox/automation-run.js';
import type { JobRunner } from './runner.js';

/**
 * `inbox.automation` {logId, step}: one step of a triggered comment-to-DM rule (the DM, then the public
 * reply). The step records its own outcome on the log row; the job is never retried (maxAttempts 1),
 * since a platform may have acted on a call whose answer was lost.
 */
export function registerAutomationTask(runner: JobRunner, ctx: AppContext): void {
  runner.register(AUTOMATION_TASK, async ({ payload }) => {
    await runAutomationStep(ctx, payload.logId, payload.step);
  });
}
