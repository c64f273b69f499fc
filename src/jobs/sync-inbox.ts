import type { AppContext } from '../context.js';
import { registerInboxWebhooks } from '../domain/inbox/webhooks.js';
import { syncInboxAccount } from '../domain/inbox/sync.js';
import { backoffMs } from '../lib/backoff.js';
import type { Platform } from '../platforms/types.js';
import { ensureJob, rescheduleJob } from '../store/jobs.js';
import { listInboxAccountIds } from '../store/inbox/sync.js';
import { registerAutomationTask } from './run-automation.js';
import type { JobRunner } from './runner.js';

const SYNC_TASK = 'inbox.sync';
const SCHEDULE_TASK = 'inbox.schedule';
const REGISTER_TASK = 'inbox.register-webhooks';
/** The tasks that run in the inbox lane (worker.ts): their own slots, never a publishing worker's. */
export const INBOX_LANE_TASKS = [SYNC_TASK, SCHEDULE_TASK, REGISTER_TASK];

export const syncJobKey = (accountId: string) => `inbox:sync:${accountId}`;

/** Platforms whose adapter polls (`inbox.sync`). */
function pollingPlatforms(ctx: AppContext): Platform[] {
  return ctx.platforms.list().filter((p) => ctx.platforms.get(p)?.inbox?.sync);
}

/**
 * Makes sure every account that should be polled has its `inbox.sync` job (a no-op for those that
 * have one): connected accounts of polling platforms whose owner has the inbox add-on. Walks them in
 * pages, so a large install costs a few statements per run.
 */
async function scheduleInboxPolls(ctx: AppContext): Promise<number> {
  const platforms = pollingPlatforms(ctx);
  const now = ctx.clock.now();
  let after = '';
  let total = 0;
  for (;;) {
    const ids = await listInboxAccountIds(ctx.db.kysely, platforms, after, 500);
    for (const accountId of ids) {
      await ensureJob(
        ctx.db.kysely,
        { task: SYNC_TASK, payload: { accountId }, runAt: now, key: syncJobKey(accountId), maxAttempts: 1_000_000 },
        now,
      );
    }
    total += ids.length;
    if (ids.length < 500) return total;
    after = ids[ids.length - 1];
  }
}

/**
 * Job tasks of the inbox add-on:
 * - `inbox.sync` {accountId}: one poll, then the job moves itself to the next poll (INBOX_POLL_MS), or
 *   further out after failures (a platform's Retry-After when it gave one, else exponential up to an
 *   hour); it deletes itself once the account no longer polls;
 * - `inbox.schedule` (periodic, every INBOX_POLL_MS): creates the missing sync jobs, and registers the
 *   callback of a pushing platform that has its first inbox account;
 * - `inbox.register-webhooks` (periodic, every 6 hours): registers Herald's callback with the platforms
 *   that push (Telegram setWebhook) while some account of theirs uses the inbox;
 * - `inbox.automation` (run-automation.ts): one step of a triggered comment-to-DM rule.
 */
export function registerInboxTasks(runner: JobRunner, ctx: AppContext): void {
  const pollMs = ctx.config.inboxPollMs;
  runner.register(SYNC_TASK, async ({ job, payload, workerId }) => {
    const outcome = await syncInboxAccount(ctx, payload.accountId);
    if (outcome.kind === 'stop') return 'done';
    const now = ctx.clock.now().getTime();
    let delay = pollMs;
    let error: string | null = null;
    if (outcome.kind === 'failed') {
      const e = outcome.error;
      error = `${e.kind}: ${e.message}`;
      delay =
        e.kind === 'rate_limited' && e.retryAfterMs
          ? Math.max(e.retryAfterMs, pollMs)
          : Math.max(pollMs, backoffMs(outcome.failures + 1, { baseMs: pollMs, capMs: 3_600_000 }));
    }
    await rescheduleJob(ctx.db.kysely, job.job_id, workerId, new Date(now + delay), error, { resetAttempts: true });
    return 'handled';
  });
  runner.registerPeriodic(SCHEDULE_TASK, pollMs, async () => {
    await scheduleInboxPolls(ctx);
    // A platform's first inbox account since this process started: register the callback now, not in 6 hours.
    await registerInboxWebhooks(ctx, { onlyNew: true });
  });
  runner.registerPeriodic(REGISTER_TASK, 6 * 3_600_000, async () => {
    await registerInboxWebhooks(ctx);
  });
  registerAutomationTask(runner, ctx);
}
