import { notFound } from '../../errors.js';
import type { Db } from '../../store/db.js';
import { findUser, listTenantUsers, type UserRow } from '../../store/users.js';
import type { Principal } from '../principal.js';

/** The users of the caller's tenant, owner first. */
export async function listUsers(db: Db, caller: Principal): Promise<UserRow[]> {
  const users = await listTenantUsers(db.kysely, caller.tenantId);
  return users.sort((a, b) => Number(b.role === 'owner') - Number(a.role === 'owner'));
}

/** One user of the caller's tenant; any other id is 404. */
export async function getUser(db: Db, caller: Principal, userId: string): Promise<UserRow> {
  const user = await findUser(db.kysely, userId);
  if (!user || user.tenant_id !== caller.tenantId) throw notFound('User', 'user_not_found');
  return user;
}
