import type { AppContext } from '../../context.js';
import type { Executor } from '../../store/db.js';
import type { AccountRow } from '../../store/accounts.js';

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
  const iso = now.toISOString();
  const res = await tx
    .updateTable('account')
    .set({ is_active: 0, disconnected_at: iso, updated_at: iso })
    .where('account_id', '=', account.account_id)
    .where('is_active', '=', 1)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return false;
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
