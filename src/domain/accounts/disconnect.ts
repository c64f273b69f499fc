import type { AppContext } from '../../context.js';
import type { Executor } from '../../store/db.js';
import { markAccountInactive, type AccountRow } from '../../store/accounts.js';

/**
 * Marks an account inactive and emits `account.disconnected` — exactly once: the update only matches
 * while the account is still active, and the event is written only when it did.
 */
export async function markAccountDisconnected(
  ctx: AppContext,
  tx: Executor,
  account: AccountRow,
  disconnectionType: 'intentional' | 'unintentional',
  reason: string,
  now: Date,
): Promise<boolean> {
  if (!(await markAccountInactive(tx, account.account_id, now))) return false;
  await ctx.events.emit(
    tx,
    account.tenant_id,
    'account.disconnected',
    {
      account: {
        accountId: account.account_id,
        profileId: account.profile_id,
        platform: account.platform,
        username: account.username,
        displayName: account.display_name ?? account.username,
        disconnectionType,
        reason,
      },
    },
    now,
  );
  return true;
}
