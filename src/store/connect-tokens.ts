import type { Executor } from './db.js';
import type { ConnectTokenTable } from './schema.js';

export type ConnectTokenRow = ConnectTokenTable;
export type ConnectTokenKind = ConnectTokenTable['kind'];

export async function insertConnectToken(db: Executor, row: ConnectTokenRow): Promise<void> {
  await db.insertInto('connect_token').values(row).execute();
}

/** A live (unexpired, unused) token of the given kind, by hash. */
export async function findLiveConnectToken(
  db: Executor,
  kind: ConnectTokenKind,
  tokenHash: string,
  now: Date,
): Promise<ConnectTokenRow | undefined> {
  return db
    .selectFrom('connect_token')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now.toISOString())
    .executeTakeFirst();
}

/** Any token of the given kind, by hash, whatever its state (for "expired" answers). */
export async function findConnectToken(
  db: Executor,
  kind: ConnectTokenKind,
  tokenHash: string,
): Promise<ConnectTokenRow | undefined> {
  return db
    .selectFrom('connect_token')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', kind)
    .executeTakeFirst();
}

/**
 * Marks a live token used. Returns false when another request used it first (or it expired meanwhile):
 * the conditional update is what makes a token single-use under concurrency.
 */
export async function consumeConnectToken(db: Executor, tokenHash: string, now: Date): Promise<boolean> {
  const iso = now.toISOString();
  const res = await db
    .updateTable('connect_token')
    .set({ used_at: iso })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', iso)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function updateConnectTokenData(db: Executor, tokenHash: string, data: string): Promise<void> {
  await db.updateTable('connect_token').set({ data }).where('token_hash', '=', tokenHash).execute();
}

/** The live records of one owner (tenant, profile, platform), newest first. */
export async function listLiveConnectTokensOf(
  db: Executor,
  kind: ConnectTokenKind,
  owner: { tenantId: string; profileId: string; platform: string },
  now: Date,
): Promise<ConnectTokenRow[]> {
  return db
    .selectFrom('connect_token')
    .selectAll()
    .where('kind', '=', kind)
    .where('tenant_id', '=', owner.tenantId)
    .where('profile_id', '=', owner.profileId)
    .where('platform', '=', owner.platform)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now.toISOString())
    .orderBy('created_at', 'desc')
    .execute();
}

/** Housekeeping: drops records that expired before `before`. */
export async function deleteExpiredConnectTokens(db: Executor, before: Date): Promise<number> {
  const res = await db.deleteFrom('connect_token').where('expires_at', '<', before.toISOString()).executeTakeFirst();
  return Number(res.numDeletedRows);
}
