import type { AppContext } from '../../context.js';
import type { AccountRow } from '../../store/accounts.js';
import { listFailingInboxSyncs, type InboxSyncRow } from '../../store/inbox/sync.js';

/** How a sync failure was recorded (sync.ts): `<kind>: <message>`. */
const RECORDED = /^(auth|rate_limited|rejected|unavailable|ambiguous): ([\s\S]*)$/;

export interface SyncFailure {
  accountId: string;
  /** The PlatformError kind of the last failed poll (`unavailable`, `auth`, ...), when recorded. */
  code: string | null;
  error: string;
  since: string;
}

/** The accounts among `accounts` whose last inbox poll failed, with why. */
export async function inboxSyncFailures(ctx: AppContext, accountIds: string[]): Promise<Map<string, SyncFailure>> {
  const rows = await listFailingInboxSyncs(ctx.db.kysely, accountIds);
  return new Map(rows.map((r) => [r.account_id, toFailure(r)]));
}

function toFailure(row: InboxSyncRow): SyncFailure {
  const text = row.last_error ?? '';
  const m = RECORDED.exec(text);
  return { accountId: row.account_id, code: m ? m[1] : null, error: m ? m[2] : text, since: row.updated_at };
}

/**
 * `meta` of every aggregated inbox list. Herald answers from its own store, so nothing fails at read
 * time; but an account whose polls fail has nothing new to show, and saying nothing would hide it:
 * those accounts are `failedAccounts`, with the last poll's error, until a poll works again.
 */
export async function listMeta(ctx: AppContext, accounts: AccountRow[]) {
  const failures = await inboxSyncFailures(
    ctx,
    accounts.map((a) => a.account_id),
  );
  const failedAccounts = accounts
    .filter((a) => failures.has(a.account_id))
    .map((a) => {
      const f = failures.get(a.account_id)!;
      return {
        accountId: a.account_id,
        accountUsername: a.username ?? null,
        platform: a.platform,
        error: f.error,
        code: f.code,
      };
    });
  return {
    accountsQueried: accounts.length,
    accountsFailed: failedAccounts.length,
    failedAccounts,
    lastUpdated: ctx.clock.now().toISOString(),
  };
}
