import type { AppContext } from '../context.js';
import { prunePublishLogs } from '../domain/publishing/logs.js';
import type { JobRunner } from './runner.js';

export const PRUNE_PUBLISH_LOGS_TASK = 'publish-log.prune';

/** Deletes publishing log entries older than the 7-day retention, every hour. */
export function registerPublishLogsPrune(runner: JobRunner, ctx: AppContext): void {
  runner.registerPeriodic(PRUNE_PUBLISH_LOGS_TASK, 60 * 60_000, async () => {
    await prunePublishLogs(ctx);
  });
}
