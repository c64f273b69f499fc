import type { AppContext } from '../../context.js';
import { toPlatformError, type PlatformError } from '../../platforms/types.js';
import { findAccountById } from '../../store/accounts.js';
import { findInboxSync, saveInboxSync } from '../../store/inbox/sync.js';
import { findUser } from '../../store/users.js';
import { accountCredentials } from '../accounts/save-account.js';
import { withTokenRefresh } from '../accounts/refresh-tokens.js';
import { inboxOf, platformIO } from './access.js';
import { ingestBatch, type IngestCounts } from './ingest.js';

/** How a poll went: `stop` when the account no longer polls (gone, disconnected, add-on removed). */
export type SyncOutcome =
  | { kind: 'stop' }
  | { kind: 'synced'; counts: IngestCounts }
  | { kind: 'failed'; error: PlatformError; failures: number };

/**
 * One poll of one account: the platform's items since the stored cursor, stored (each item once, its
 * event with it), then the new cursor. A failure keeps the cursor and counts toward the back-off.
 */
export async function syncInboxAccount(ctx: AppContext, accountId: string): Promise<SyncOutcome> {
  let account = await findAccountById(ctx.db.kysely, accountId);
  if (!account || account.is_active !== 1) return { kind: 'stop' };
  const sync = inboxOf(ctx, account.platform)?.sync;
  const owner = await findUser(ctx.db.kysely, account.tenant_id);
  if (!sync || !owner || !(JSON.parse(owner.addons) as string[]).includes('inbox')) return { kind: 'stop' };
  const state = await findInboxSync(ctx.db.kysely, accountId);
  const cursor = state?.cursor ? (JSON.parse(state.cursor) as Record<string, unknown>) : null;
  const io = platformIO(ctx);
  try {
    // As publishing does: an `auth` answer gets one token refresh, then one more try.
    let batch;
    ({ account, batch } = await withTokenRefresh(ctx, account, io, async (row) => ({
      account: row,
      batch: await sync(accountCredentials(ctx, row), cursor, io),
    })));
    const counts = await ingestBatch(ctx, account, batch);
    await saveInboxSync(ctx.db.kysely, accountId, {
      cursor: batch.cursor === undefined ? undefined : batch.cursor === null ? null : JSON.stringify(batch.cursor),
      error: null,
      now: ctx.clock.now().toISOString(),
    });
    return { kind: 'synced', counts };
  } catch (error) {
    const failure = toPlatformError(error);
    await saveInboxSync(ctx.db.kysely, accountId, {
      error: `${failure.kind}: ${failure.message}`.slice(0, 2000),
      now: ctx.clock.now().toISOString(),
    });
    return { kind: 'failed', error: failure, failures: (state?.failures ?? 0) + 1 };
  }
}
