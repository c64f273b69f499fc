import { AppError, invalid, notFound } from '../errors.js';
import { newId } from '../lib/ids.js';
import type { Db } from '../store/db.js';
import { claimMetaKey } from '../store/meta.js';
import { countUsers, findUser, findUserByEmail, insertUser, updateUser, type UserRow } from '../store/users.js';
import { countActiveApiKeys } from '../store/api-keys.js';
import { issueApiKey, MAX_ACTIVE_KEYS } from './api-keys.js';
import { ADDONS, isPlanId, type Addon, type PlanId } from './plans.js';

export interface CreateUserInput {
  email: string;
  plan: string;
  addons?: string[];
  name?: string | null;
}

function validatePlanAndAddons(plan: string, addons: string[]): { plan: PlanId; addons: Addon[] } {
  if (!isPlanId(plan)) throw invalid('invalid_plan', `Unknown plan "${plan}" (free, build, accelerate, unlimited)`);
  const unknown = addons.filter((a) => !(ADDONS as readonly string[]).includes(a));
  if (unknown.length) throw invalid('invalid_addon', `Unknown add-on(s): ${unknown.join(', ')} (analytics, inbox)`);
  if (plan === 'free' && addons.length)
    throw invalid('addon_requires_paid_plan', 'Add-ons are available on paid plans only');
  return { plan, addons: [...new Set(addons)] as Addon[] };
}

/** Creates a tenant owner with a first API key (CLI and first start). */
export async function createOwner(
  db: Db,
  input: CreateUserInput,
  now: Date,
): Promise<{ user: UserRow; apiKey: string }> {
  const email = input.email?.trim().toLowerCase();
  if (!email || !/^[^@\s]+@[^@\s]+$/.test(email))
    throw invalid('invalid_email', `Not an email address: "${input.email}"`);
  const { plan, addons } = validatePlanAndAddons(input.plan, input.addons ?? []);
  return db.transaction(async (tx) => {
    if (await findUserByEmail(tx, email))
      throw new AppError('conflict', 'email_taken', `A user with email ${email} exists`);
    const userId = newId(now);
    const iso = now.toISOString();
    const user: UserRow = {
      user_id: userId,
      tenant_id: userId,
      email,
      name: input.name ?? null,
      role: 'owner',
      plan,
      addons: JSON.stringify(addons),
      profile_access: null,
      created_at: iso,
      updated_at: iso,
    };
    await insertUser(tx, user);
    const { key } = await issueApiKey(tx, { userId, tenantId: userId }, { name: 'Default key' }, now);
    return { user, apiKey: key };
  });
}

/**
 * On first start with an empty database, creates the owner (plan unlimited) and returns its key so the
 * caller prints it once. The meta row makes this happen once, even with several processes starting.
 */
export async function bootstrapOwner(db: Db, now: Date): Promise<{ user: UserRow; apiKey: string } | null> {
  const first = await claimMetaKey(db.kysely, 'owner_bootstrapped', now.toISOString(), now);
  if (!first) return null;
  if ((await countUsers(db.kysely)) > 0) return null;
  return createOwner(
    db,
    { email: 'owner@herald.local', plan: 'unlimited', addons: ['analytics', 'inbox'], name: 'Owner' },
    now,
  );
}

export async function setPlan(
  db: Db,
  userId: string,
  plan: string,
  addons: string[] | undefined,
  now: Date,
): Promise<UserRow> {
  const user = await findUser(db.kysely, userId);
  if (!user) throw notFound('User', 'user_not_found');
  if (user.role !== 'owner') throw invalid('not_an_owner', "Plans belong to the tenant owner; set the owner's plan");
  const checked = validatePlanAndAddons(plan, addons ?? JSON.parse(user.addons));
  const patch = { plan: checked.plan, addons: JSON.stringify(checked.addons), updated_at: now.toISOString() };
  await updateUser(db.kysely, userId, patch);
  return { ...user, ...patch };
}

export async function createKeyForUser(
  db: Db,
  userId: string,
  name: string,
  now: Date,
): Promise<{ apiKey: string; keyId: string }> {
  const user = await findUser(db.kysely, userId);
  if (!user) throw notFound('User', 'user_not_found');
  return db.transaction(async (tx) => {
    if ((await countActiveApiKeys(tx, userId, now.toISOString())) >= MAX_ACTIVE_KEYS) {
      throw new AppError('limit', 'api_key_limit_reached', `At most ${MAX_ACTIVE_KEYS} active API keys per user`);
    }
    const { key, row } = await issueApiKey(tx, { userId: user.user_id, tenantId: user.tenant_id }, { name }, now);
    return { apiKey: key, keyId: row.api_key_id };
  });
}

/** A new API key for the user with this email (the CLI's way back in when the owner's key is lost). */
export async function createKeyForEmail(
  db: Db,
  email: string,
  name: string,
  now: Date,
): Promise<{ userId: string; apiKey: string; keyId: string }> {
  const user = await findUserByEmail(db.kysely, email.trim().toLowerCase());
  if (!user) throw notFound('User', 'user_not_found');
  return { userId: user.user_id, ...(await createKeyForUser(db, user.user_id, name, now)) };
}
