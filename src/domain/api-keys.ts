import { AppError, forbidden, invalidFields, notFound } from '../errors.js';
import { randomHex, sha256Hex } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import type { Db, Executor } from '../store/db.js';
import {
  countActiveApiKeys,
  insertApiKey,
  listUserApiKeys,
  softDeleteApiKey,
  type ApiKeyRow,
} from '../store/api-keys.js';
import { listProfiles } from '../store/profiles.js';
import type { Principal } from './principal.js';

export const MAX_ACTIVE_KEYS = 10;

export interface CreateApiKeyInput {
  name: string;
  /** Days until the key stops working; omitted = never. */
  expiresIn?: number;
  scope?: 'full' | 'profiles';
  profileIds?: string[];
  permission?: 'read-write' | 'read';
}

/** `sk_` + 64 hex characters from 32 random bytes (spec "API key"). */
function generateApiKey(): string {
  return 'sk_' + randomHex(32);
}

function keyPreview(key: string): string {
  return `${key.slice(0, 11)}...${key.slice(-8)}`;
}

/**
 * Creates a key for a user, outside of any request (CLI, first start). Returns the full key: the only
 * moment it exists outside the caller's hands.
 */
export async function issueApiKey(
  db: Executor,
  user: { userId: string; tenantId: string },
  input: Omit<CreateApiKeyInput, 'profileIds'> & { profileIds?: string[] },
  now: Date,
): Promise<{ key: string; row: ApiKeyRow }> {
  const key = generateApiKey();
  const row: ApiKeyRow = {
    api_key_id: newId(now),
    user_id: user.userId,
    tenant_id: user.tenantId,
    name: input.name,
    key_hash: sha256Hex(key),
    key_preview: keyPreview(key),
    scope: input.scope ?? 'full',
    profile_ids: JSON.stringify(input.profileIds ?? []),
    permission: input.permission ?? 'read-write',
    expires_at: input.expiresIn ? new Date(now.getTime() + input.expiresIn * 86_400_000).toISOString() : null,
    created_at: now.toISOString(),
    deleted_at: null,
  };
  await insertApiKey(db, row);
  return { key, row };
}

export async function createApiKey(db: Db, caller: Principal, input: CreateApiKeyInput, now: Date) {
  const name = input.name?.trim();
  if (!name) throw invalidFields('name is required', { name: ['must not be empty'] });
  const scope = input.scope ?? 'full';
  let profileIds: string[] = [];
  if (scope === 'profiles') {
    profileIds = [...new Set(input.profileIds ?? [])];
    if (profileIds.length === 0) {
      throw invalidFields('profileIds is required when scope is "profiles"', {
        profileIds: ['must list at least one profile'],
      });
    }
    const visible = await listProfiles(db.kysely, caller.tenantId, caller.profileIds);
    const unknown = profileIds.filter((id) => !visible.some((p) => p.profile_id === id));
    if (unknown.length)
      throw invalidFields('Unknown profile ids', { profileIds: unknown.map((id) => `unknown profile ${id}`) });
  } else if (caller.profileIds !== null) {
    // A restricted caller cannot mint a key that sees more than it does.
    throw forbidden('scope_exceeds_caller', 'A profile-scoped caller can only create profile-scoped keys');
  }
  if (caller.permission === 'read' && input.permission !== 'read') {
    throw forbidden('read_only_key', 'A read-only key cannot create a read-write key');
  }
  const created = await db.transaction(async (tx) => {
    const active = await countActiveApiKeys(tx, caller.userId, now.toISOString());
    if (active >= MAX_ACTIVE_KEYS) {
      throw new AppError('limit', 'api_key_limit_reached', `At most ${MAX_ACTIVE_KEYS} active API keys per user`, {
        limit: MAX_ACTIVE_KEYS,
      });
    }
    return issueApiKey(
      tx,
      { userId: caller.userId, tenantId: caller.tenantId },
      { ...input, name, scope, profileIds },
      now,
    );
  });
  return { ...created, profiles: await listProfiles(db.kysely, caller.tenantId, null) };
}

export async function listApiKeys(db: Db, caller: Principal) {
  const [keys, profiles] = await Promise.all([
    listUserApiKeys(db.kysely, caller.userId),
    listProfiles(db.kysely, caller.tenantId, null),
  ]);
  return { keys, profiles };
}

export async function deleteApiKey(db: Db, caller: Principal, keyId: string, now: Date): Promise<void> {
  const deleted = await softDeleteApiKey(db.kysely, caller.userId, keyId, now.toISOString());
  if (!deleted) throw notFound('API key', 'api_key_not_found');
}
