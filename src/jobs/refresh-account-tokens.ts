import type { AppContext } from '../context.js';
import { refreshAccountTokens } from '../domain/accounts/refresh-tokens.js';
import { writeConnectionLog } from '../domain/connect/connection-log.js';
import { PlatformError } from '../platforms/types.js';
import { findAccountById } from '../store/accounts.js';
import type { PayloadOf } from './payloads.js';
import { RetryLater, type TaskRun } from './runner.js';
import { backoffMs } from '../lib/backoff.js';

/**
 * Refreshes one account's tokens. Re-reads the account first (it may have been refreshed, reconnected or
 * deleted meanwhile). A transient failure (5xx, timeout, throttling) is retried with backoff and never
 * disconnects; a revoked grant disconnects the account once (refreshAccountTokens emits the event).
 */
export function refreshAccountTokensTask(ctx: AppContext) {
  return async (run: TaskRun<PayloadOf<'account.refresh'>>): Promise<void> => {
    const account = await findAccountById(ctx.db.kysely, run.payload.accountId);
    if (!account || account.is_active !== 1 || !account.token_expires_at) return;
    const now = ctx.clock.now();
    const aheadMs = ctx.config.tokenRefreshAheadMinutes * 60_000;
    if (new Date(account.token_expires_at).getTime() - now.getTime() > aheadMs) return;
    try {
      const outcome = await refreshAccountTokens(ctx, account);
      if (outcome === 'disconnected') {
        await writeConnectionLog(ctx, ctx.db.kysely, {
          tenantId: account.tenant_id,
          userId: null,
          profileId: account.profile_id,
          accountId: account.account_id,
          platform: account.platform,
          eventType: 'disconnect',
          method: 'oauth',
          error: { code: 'token_revoked', message: 'The platform revoked the grant during a token refresh' },
          context: { disconnectionType: 'unintentional' },
        });
      }
    } catch (error) {
      if (error instanceof PlatformError && error.kind === 'rate_limited' && error.retryAfterMs) {
        throw new RetryLater(new Date(now.getTime() + error.retryAfterMs), error.message);
      }
      if (
        error instanceof PlatformError &&
        (error.kind === 'unavailable' || error.kind === 'ambiguous' || error.kind === 'rate_limited')
      ) {
        throw new RetryLater(new Date(now.getTime() + backoffMs(run.job.attempts)), `transient: ${error.message}`);
      }
      throw error;
    }
  };
}
