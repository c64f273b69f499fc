import type { Executor } from './db.js';
import type { UserTable } from './schema.js';

export type UserRow = UserTable;

export async function insertUser(db: Executor, row: UserRow): Promise<void> {
  await db.insertInto('user').values(row).execute();
}

export async function findUser(db: Executor, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom('user').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

export async function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('user').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function listTenantUsers(db: Executor, tenantId: string): Promise<UserRow[]> {
  return db
    .selectFrom('user')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .orderBy('user_id')
    .execute();
}

/** Every user of every tenant, each tenant's together (the admin CLI). */
export async function listAllUsers(db: Executor): Promise<UserRow[]> {
  return db.selectFrom('user').selectAll().orderBy('tenant_id').orderBy('created_at').orderBy('user_id').execute();
}

export async function countUsers(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('user')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateUser(
  db: Executor,
  userId: string,
  patch: Partial<Pick<UserRow, 'plan' | 'addons' | 'name' | 'profile_access' | 'updated_at'>>,
): Promise<number> {
  const res = await db.updateTable('user').set(patch).where('user_id', '=', userId).executeTakeFirst();
  return Number(res.numUpdatedRows);
}
