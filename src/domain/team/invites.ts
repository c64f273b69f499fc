import { AppError, conflict, forbidden, invalid, invalidFields, notFound } from '../../errors.js';
import { randomHex, sha256Hex } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';
import { isUniqueViolation, type Db } from '../../store/db.js';
import { findInviteByHash, insertInvite, markInviteUsed, type InviteRow } from '../../store/invites.js';
import { listProfiles } from '../../store/profiles.js';
import { findUser, findUserByEmail, insertUser, type UserRow } from '../../store/users.js';
import { issueApiKey } from '../api-keys.js';
import type { Principal } from '../principal.js';
import { storePassword } from './sessions.js';

/** Invites are single use and expire after 7 days (reference §4.2). */
const INVITE_TTL_MS = 7 * 86_400_000;

export interface CreateInviteInput {
  scope: 'all' | 'profiles';
  profileIds?: string[];
}

/** `inv_` + 48 hex characters (24 random bytes). Only its SHA-256 is stored. */
function generateInviteToken(): string {
  return 'inv_' + randomHex(24);
}

/**
 * Creates an invitation into the caller's tenant. A caller limited to some profiles (a member or a
 * scoped key) can only invite to profiles it sees, never to "all".
 */
export async function createInvite(db: Db, caller: Principal, input: CreateInviteInput, now: Date) {
  let profileIds: string[] = [];
  if (input.scope === 'all') {
    if (caller.profileIds !== null) {
      throw forbidden('invite_scope_forbidden', 'A caller limited to some profiles cannot invite to all profiles');
    }
  } else {
    profileIds = [...new Set(input.profileIds ?? [])];
    if (profileIds.length === 0)
      throw invalidFields('profileIds is required when scope is "profiles"', {
        profileIds: ['is required when scope is profiles'],
      });
    const owned = new Set((await listProfiles(db.kysely, caller.tenantId, profileIds)).map((p) => p.profile_id));
    const refused = profileIds.filter(
      (id) => !owned.has(id) || (caller.profileIds !== null && !caller.profileIds.includes(id)),
    );
    if (refused.length) {
      throw forbidden('profile_not_owned', 'One or more profiles not found or not owned', { profileIds: refused });
    }
  }
  const token = generateInviteToken();
  const row: InviteRow = {
    invite_id: newId(now),
    tenant_id: caller.tenantId,
    created_by: caller.userId,
    token_hash: sha256Hex(token),
    scope: input.scope,
    profile_ids: JSON.stringify(profileIds),
    expires_at: new Date(now.getTime() + INVITE_TTL_MS).toISOString(),
    used_at: null,
    used_by: null,
    created_at: now.toISOString(),
  };
  await insertInvite(db.kysely, row);
  return { token, row };
}

/** What the invite link shows (it does not use the invite): its scope and whether it can still be accepted. */
export async function describeInvite(db: Db, token: string, now: Date) {
  const invite = await findInviteByHash(db.kysely, sha256Hex(token.trim()));
  if (!invite) throw notFound('Invite', 'invite_not_found');
  const status = invite.used_at ? 'used' : invite.expires_at <= now.toISOString() ? 'expired' : 'pending';
  return { invite, status } as const;
}

export interface AcceptInviteInput {
  token: string;
  email: string;
  name?: string | null;
  /** A password for the dashboard, set in the same transaction (its scrypt hash, made beforehand). */
  passwordHash?: string;
}

/**
 * Turns an invitation into a member of the inviter's tenant with the invited profile access, and a
 * first API key (returned once). Unknown tokens are 404, used ones 409, expired ones 400.
 */
export async function acceptInvite(
  db: Db,
  input: AcceptInviteInput,
  now: Date,
): Promise<{ user: UserRow; apiKey: string }> {
  const email = input.email?.trim().toLowerCase();
  if (!email || !/^[^@\s]+@[^@\s]+$/.test(email))
    throw invalidFields(`Not an email address: "${input.email}"`, { email: ['must be an email address'] });
  const tokenHash = sha256Hex(String(input.token ?? '').trim());
  return db.transaction(async (tx) => {
    const invite = await findInviteByHash(tx, tokenHash);
    if (!invite) throw notFound('Invite', 'invite_not_found');
    if (invite.used_at) throw conflict('invite_used', 'This invite has already been used');
    if (invite.expires_at <= now.toISOString()) throw invalid('invite_expired', 'This invite has expired');
    const owner = await findUser(tx, invite.tenant_id);
    if (!owner) throw notFound('Invite', 'invite_not_found');
    if (await findUserByEmail(tx, email))
      throw new AppError('conflict', 'email_taken', `A user with email ${email} exists`);
    const iso = now.toISOString();
    const user: UserRow = {
      user_id: newId(now),
      tenant_id: invite.tenant_id,
      email,
      name: input.name?.trim() || null,
      role: 'member',
      // Limits and add-ons are read from the owner's row; the member row mirrors them for display.
      plan: owner.plan,
      addons: owner.addons,
      profile_access: invite.scope === 'all' ? null : invite.profile_ids,
      created_at: iso,
      updated_at: iso,
    };
    try {
      await insertUser(tx, user);
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('conflict', 'email_taken', `A user with email ${email} exists`);
      throw error;
    }
    if (input.passwordHash) await storePassword(tx, user.user_id, input.passwordHash, now);
    if (!(await markInviteUsed(tx, invite.invite_id, user.user_id, iso))) {
      throw conflict('invite_used', 'This invite has already been used');
    }
    const { key } = await issueApiKey(
      tx,
      { userId: user.user_id, tenantId: user.tenant_id },
      { name: 'Default key' },
      now,
    );
    return { user, apiKey: key };
  });
}
