import type { Executor } from './db.js';
import type { AccountTable } from './schema.js';

export type AccountRow = AccountTable;

export async function insertAccount(db: Executor, row: AccountRow): Promise<void> {
  await db.insertInto('account').values(row).execute();
}

export async function findAccount(db: Executor, tenantId: string, accountId: string): Promise<AccountRow | undefined> {
  return db
    .selectFrom('account')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** Accounts still connected to a profile (a profile with any cannot be deleted). */
export async function countProfileAccounts(db: Executor, tenantId: string, profileId: string): Promise<number> {
  const row = await db
    .selectFrom('account')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('profile_id', '=', profileId)
    .where('disconnected_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
