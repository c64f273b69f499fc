import type { AppContext } from '../context.js';
import { collectAccount } from '../domain/analytics/collect.js';
import { listAccountsDueMetrics, listAccountsWithDueTargets } from '../store/analytics.js';
import { ensureJob } from '../store/jobs.js';
import type { PayloadOf } from './payloads.js';
import { RetryLater, type JobRunner, type TaskRun } from './runner.js';

const ANALYTICS_SCAN_TASK = 'analytics.scan';
const ANALYTICS_COLLECT_TASK = 'analytics.collect';
/** Scan interval: every minute. */
const ANALYTICS_SCAN_EVERY_MS = 60_000;
/** Most accounts one scan gives a job. */
const ACCOUNTS_PER_SCAN = 1000;

/** The tasks of the analytics lane (worker.ts): slots of their own beside publishing's. */
export const ANALYTICS_LANE_TASKS = [ANALYTICS_SCAN_TASK, ANALYTICS_COLLECT_TASK];

const collectJobKey = (accountId: string) => `analytics.collect:${accountId}`;

/**
 * Periodic: finds accounts with reads due (targets on the ANALYTICS_SCHEDULE, or the daily account read)
 * and gives each one collection job. The key keeps it to one job per account, so a slow platform never
 * accumulates a backlog of jobs, only of due reads (which the next job takes in one go).
 */
function scanAnalyticsTask(ctx: AppContext) {
  return async (_run: TaskRun): Promise<void> => {
    const now = ctx.clock.now();
    const iso = now.toISOString();
    const accounts = new Set([
      ...(await listAccountsWithDueTargets(ctx.db.kysely, iso, ACCOUNTS_PER_SCAN)),
      ...(await listAccountsDueMetrics(ctx.db.kysely, iso, ACCOUNTS_PER_SCAN)),
    ]);
    for (const accountId of accounts) {
      await ensureJob(
        ctx.db.kysely,
        {
          task: ANALYTICS_COLLECT_TASK,
          payload: { accountId },
          runAt: now,
          key: collectJobKey(accountId),
          maxAttempts: 20,
        },
        now,
      );
    }
  };
}

/** One account's reads (domain/analytics/collect.ts). */
function collectAnalyticsTask(ctx: AppContext) {
  return async (run: TaskRun<PayloadOf<typeof ANALYTICS_COLLECT_TASK>>): Promise<void> => {
    const outcome = await collectAccount(ctx, run.payload.accountId, run.job.attempts);
    if ('retryAt' in outcome) throw new RetryLater(outcome.retryAt, outcome.reason);
  };
}

/**
 * Both run in their own lane (ANALYTICS_LANE_TASKS, ANALYTICS_CONCURRENCY slots; worker.ts): collection never takes a publishing slot,
 * and a backlog of reads never delays a scheduled post.
 */
export function registerAnalyticsCollection(runner: JobRunner, ctx: AppContext): void {
  runner.registerPeriodic(ANALYTICS_SCAN_TASK, ANALYTICS_SCAN_EVERY_MS, scanAnalyticsTask(ctx));
  runner.register(ANALYTICS_COLLECT_TASK, collectAnalyticsTask(ctx));
}
