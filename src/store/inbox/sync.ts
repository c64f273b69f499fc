import type { Executor } from '../db.js';
import type { InboxSyncTable } from '../schema.js';

export type InboxSyncRow = InboxSyncTable;

export async function findInboxSync(db: Executor, accountId: string): Promise<InboxSyncRow | undefined> {
  return db.selectFrom('inbox_sync').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

/** Records a poll's outcome: the new cursor (undefined keeps the stored one) and success or the error. */
export async function saveInboxSync(
  db: Executor,
  accountId: string,
  outcome: { cursor?: string | null; error: string | null; now: string },
): Promise<void> {
  const existing = await findInboxSync(db, accountId);
  const failures = outcome.error ? (existing?.failures ?? 0) + 1 : 0;
  const row: InboxSyncRow = {
    account_id: accountId,
    cursor: outcome.cursor === undefined ? (existing?.cursor ?? null) : outcome.cursor,
    last_synced_at: outcome.error ? (existing?.last_synced_at ?? null) : outcome.now,
    last_error: outcome.error,
    failures,
    updated_at: outcome.now,
  };
  await db
    .insertInto('inbox_sync')
    .values(row)
    .onConflict((oc) =>
      oc.column('account_id').doUpdateSet({
        cursor: row.cursor,
        last_synced_at: row.last_synced_at,
        last_error: row.last_error,
        failures,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

/**
 * Connected accounts of `platforms` whose tenant owner has the inbox add-on, after `afterId` in id
 * order (the poll scheduler walks them in pages).
 */
export async function listInboxAccountIds(
  db: Executor,
  platforms: string[],
  afterId: string,
  limit: number,
): Promise<string[]> {
  if (platforms.length === 0) return [];
  const rows = await db
    .selectFrom('account')
    .innerJoin('user', 'user.user_id', 'account.tenant_id')
    .select('account.account_id')
    .where('account.platform', 'in', platforms)
    .where('account.is_active', '=', 1)
    .where('account.account_id', '>', afterId)
    .where('user.addons', 'like', '%"inbox"%')
    .orderBy('account.account_id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.account_id);
}

/** Connected accounts of one platform that a pushed update names by platform user id (any tenant). */
export async function listAccountsByPlatformUser(db: Executor, platform: string, platformUserId: string) {
  return db
    .selectFrom('account')
    .selectAll()
    .where('platform', '=', platform)
    .where('platform_user_id', '=', platformUserId)
    .where('is_active', '=', 1)
    .execute();
}

/** Every connected account of a platform (for an update whose account is named by metadata). */
export async function listActivePlatformAccounts(db: Executor, platform: string) {
  return db.selectFrom('account').selectAll().where('platform', '=', platform).where('is_active', '=', 1).execute();
}

/** The poll state of the accounts whose last inbox sync failed, among `accountIds`. */
export async function listFailingInboxSyncs(db: Executor, accountIds: string[]): Promise<InboxSyncRow[]> {
  if (accountIds.length === 0) return [];
  const rows: InboxSyncRow[] = [];
  // In slices: PostgreSQL and SQLite both cap the parameters of one statement.
  for (let i = 0; i < accountIds.length; i += 500) {
    const slice = accountIds.slice(i, i + 500);
    rows.push(
      ...(await db
        .selectFrom('inbox_sync')
        .selectAll()
        .where('account_id', 'in', slice)
        .where('last_error', 'is not', null)
        .execute()),
    );
  }
  return rows;
}
