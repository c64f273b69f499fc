import type { AppContext } from '../context.js';
import { listAccountsDueForRefresh } from '../store/accounts.js';
import { deleteExpiredConnectTokens } from '../store/connect-tokens.js';
import { enqueueJob, findJobByKey } from '../store/jobs.js';
import { refreshAccountTokensTask } from './refresh-account-tokens.js';
import type { JobRunner, TaskRun } from './runner.js';

const REFRESH_SCAN_TASK = 'account.refresh-scan';
const REFRESH_TASK = 'account.refresh';
/** Scan interval: every minute. */
const REFRESH_SCAN_EVERY_MS = 60_000;

export const refreshJobKey = (accountId: string) => `account.refresh:${accountId}`;

/**
 * Periodic: finds active accounts whose access token expires within TOKEN_REFRESH_AHEAD_MINUTES and
 * gives each one refresh job (one per account: an existing one, maybe backing off, is left alone).
 */
function refreshDueTokensTask(ctx: AppContext) {
  return async (_run: TaskRun): Promise<void> => {
    const now = ctx.clock.now();
    const before = new Date(now.getTime() + ctx.config.tokenRefreshAheadMinutes * 60_000);
    const due = await listAccountsDueForRefresh(ctx.db.kysely, before, 500);
    for (const account of due) {
      if (!ctx.platforms.get(account.platform as never)?.refreshTokens) continue;
      await ctx.db.transaction(async (tx) => {
        const key = refreshJobKey(account.account_id);
        if (await findJobByKey(tx, key)) return;
        await enqueueJob(
          tx,
          { task: REFRESH_TASK, payload: { accountId: account.account_id }, runAt: now, key, maxAttempts: 8 },
          now,
        );
      });
    }
    // Housekeeping: connect records are kept a day past expiry (a Telegram poll can still say "expired").
    await deleteExpiredConnectTokens(ctx.db.kysely, new Date(now.getTime() - 86_400_000));
  };
}

/** The token refresh scan (every minute) and the per-account refresh task. */
export function registerTokenRefresh(runner: JobRunner, ctx: AppContext): void {
  runner.registerPeriodic(REFRESH_SCAN_TASK, REFRESH_SCAN_EVERY_MS, refreshDueTokensTask(ctx));
  runner.register(REFRESH_TASK, refreshAccountTokensTask(ctx));
}
