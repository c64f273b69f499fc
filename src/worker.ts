import type { AppContext } from './context.js';
import { systemClock } from './lib/clock.js';
import { ANALYTICS_LANE_TASKS } from './jobs/collect-analytics.js';
import { DELIVER_TASK } from './domain/webhooks/fanout.js';
import { heartbeat, HEARTBEAT_MS, leaveHeartbeat } from './jobs/heartbeat.js';
import { JobRunner } from './jobs/runner.js';
import { INBOX_LANE_TASKS } from './jobs/sync-inbox.js';
import { registerTasks } from './jobs/tasks.js';
import { ensureJob } from './store/jobs.js';

/** Builds the job runner with every task registered and makes sure periodic jobs exist. */
export async function createWorker(ctx: AppContext, opts: { workerId?: string } = {}): Promise<JobRunner> {
  const runner = new JobRunner(ctx.db, ctx.clock, ctx.log, {
    workerId: opts.workerId,
    pollMs: ctx.config.workerPollMs,
    // Jobs due before the next poll start at their time. Not under a test's FakeClock, which timers do
    // not move.
    lookaheadMs: ctx.clock === systemClock ? ctx.config.workerPollMs : 0,
    concurrency: ctx.config.workerConcurrency,
    batchSize: ctx.config.workerBatchSize,
    leaseMs: ctx.config.workerLeaseMs,
    // Webhook deliveries, inbox polls and analytics collection have slots of their own: a burst of them
    // (10,000 comment.received deliveries after an inbox sync) never delays a publish.
    lanes: [
      { tasks: [DELIVER_TASK], concurrency: ctx.config.webhookConcurrency },
      { tasks: INBOX_LANE_TASKS, concurrency: ctx.config.inboxSyncConcurrency },
      { tasks: ANALYTICS_LANE_TASKS, concurrency: ctx.config.analyticsConcurrency },
    ],
    // Live workers split the platforms' budgets when no Redis shares them (jobs/heartbeat.ts).
    heartbeat: { everyMs: HEARTBEAT_MS, beat: (id) => heartbeat(ctx, id), end: (id) => leaveHeartbeat(ctx, id) },
  });
  registerTasks(runner, ctx);
  await ensurePeriodicJobs(ctx, runner);
  return runner;
}

async function ensurePeriodicJobs(ctx: AppContext, runner: JobRunner): Promise<void> {
  const now = ctx.clock.now();
  for (const p of runner.periodicTasks) {
    // The key makes this a no-op when another process (or an earlier start) created it.
    await ensureJob(
      ctx.db.kysely,
      { task: p.task, payload: {}, runAt: now, key: `periodic:${p.task}`, maxAttempts: 1_000_000 },
      now,
    );
  }
}
