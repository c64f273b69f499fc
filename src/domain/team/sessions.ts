import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { AppError, forbidden, invalidFields } from '../../errors.js';
import { hmacSha256Hex, safeEqual, sha256Hex } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';
import {
  decoyHash,
  hashPassword,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  verifyPassword,
} from '../../lib/password.js';
import type { Executor } from '../../store/db.js';
import {
  deleteExpiredSessions,
  deleteSession,
  deleteUserSessions,
  findPasswordHash,
  findSessionByHash,
  insertSession,
  upsertPassword,
} from '../../store/sessions.js';
import { findUser, findUserByEmail, type UserRow } from '../../store/users.js';
import { isPlanId, type Addon } from '../plans.js';
import type { Principal } from '../principal.js';

/**
 * Sign-in for people (the dashboard): email and password give a server-side session whose token lives
 * in an HttpOnly cookie (http/session-cookie.ts). Its CSRF token is derived from the session token, so
 * only a page that can read the session's own answers (same origin) can send it back.
 */

/** Login attempts admitted per minute for one email, and for one client address. */
export const LOGIN_ATTEMPTS_PER_EMAIL = 5;
const LOGIN_ATTEMPTS_PER_CLIENT = 20;

const TOKEN_PATTERN = /^hs_[A-Za-z0-9_-]{43}$/;

export interface StartedSession {
  token: string;
  csrfToken: string;
  sessionId: string;
  expiresAt: string;
  user: UserRow;
}

/** The CSRF token of a session: an HMAC of a constant under the session token (never stored). */
export function csrfTokenFor(sessionToken: string): string {
  return hmacSha256Hex(sessionToken, 'herald-csrf-v1');
}

export function csrfMatches(sessionToken: string, sent: string | undefined): boolean {
  return typeof sent === 'string' && safeEqual(csrfTokenFor(sessionToken), sent);
}

/** Refuses a password Herald will not store, naming the field. */
export function checkNewPassword(password: unknown, field = 'password'): string {
  if (typeof password !== 'string' || password.length < PASSWORD_MIN_LENGTH) {
    throw invalidFields(`The password must have at least ${PASSWORD_MIN_LENGTH} characters`, {
      [field]: [`must have at least ${PASSWORD_MIN_LENGTH} characters`],
    });
  }
  if (password.length > PASSWORD_MAX_LENGTH) {
    throw invalidFields(`The password must have at most ${PASSWORD_MAX_LENGTH} characters`, {
      [field]: [`must have at most ${PASSWORD_MAX_LENGTH} characters`],
    });
  }
  return password;
}

/** Stores a user's password hash (hash it first: scrypt is slow, keep it out of transactions). */
export async function storePassword(db: Executor, userId: string, passwordHash: string, now: Date): Promise<void> {
  await upsertPassword(db, { user_id: userId, password_hash: passwordHash, updated_at: now.toISOString() });
}

/** Starts a session for a user (after a password check or an invitation). */
export async function startSession(ctx: AppContext, user: UserRow): Promise<StartedSession> {
  const now = ctx.clock.now();
  const token = 'hs_' + randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + ctx.config.sessionTtlHours * 3_600_000).toISOString();
  const sessionId = newId(now);
  await deleteExpiredSessions(ctx.db.kysely, now.toISOString());
  await insertSession(ctx.db.kysely, {
    session_id: sessionId,
    token_hash: sha256Hex(token),
    user_id: user.user_id,
    tenant_id: user.tenant_id,
    created_at: now.toISOString(),
    expires_at: expiresAt,
  });
  return { token, csrfToken: csrfTokenFor(token), sessionId, expiresAt, user };
}

function admitAttempt(ctx: AppContext, key: string, limit: number): Promise<void> {
  const now = ctx.clock.now();
  return Promise.resolve(ctx.rateLimiter.hit(`login:${key}`, limit, now)).then((d) => {
    if (d.allowed) return;
    const retryAfter = Math.max(1, d.resetAt - Math.floor(now.getTime() / 1000));
    throw new AppError('rate_limited', 'too_many_login_attempts', 'Too many sign-in attempts: wait a minute', {
      retryAfter,
    });
  });
}

/**
 * Checks an email and password and starts a session. Every attempt counts against two limits (the email
 * and the client address), whatever its outcome, so guessing is slow and scrypt cannot be used to load the
 * server. An unknown email, a user without a password and a wrong password get the same answer.
 */
export async function logIn(
  ctx: AppContext,
  input: { email: string; password: string },
  client: string,
): Promise<StartedSession> {
  const email = input.email.trim().toLowerCase();
  await admitAttempt(ctx, `client:${client}`, LOGIN_ATTEMPTS_PER_CLIENT);
  await admitAttempt(ctx, `email:${sha256Hex(email)}`, LOGIN_ATTEMPTS_PER_EMAIL);
  const user = await findUserByEmail(ctx.db.kysely, email);
  const stored = user ? await findPasswordHash(ctx.db.kysely, user.user_id) : undefined;
  // NOTE: an unknown email still pays for one scrypt, so timing does not tell which emails exist.
  const ok = await verifyPassword(input.password, stored ?? (await decoyHash()));
  if (!user || !stored || !ok) {
    throw new AppError('unauthenticated', 'invalid_credentials', 'Wrong email or password');
  }
  return startSession(ctx, user);
}

export async function logOut(ctx: AppContext, sessionId: string): Promise<void> {
  await deleteSession(ctx.db.kysely, sessionId);
}

/** The principal of a session cookie's token: the user's own permissions, as a full-scope key of theirs. */
export async function sessionPrincipal(ctx: AppContext, token: string): Promise<Principal> {
  const unauthorized = new AppError('unauthenticated', 'unauthorized', 'Your session has ended: sign in again');
  if (!TOKEN_PATTERN.test(token)) throw unauthorized;
  const row = await findSessionByHash(ctx.db.kysely, sha256Hex(token));
  if (!row || row.expires_at <= ctx.clock.now().toISOString()) throw unauthorized;
  return Object.freeze({
    userId: row.user_id,
    tenantId: row.tenant_id,
    apiKeyId: row.session_id,
    sessionId: row.session_id,
    sessionExpiresAt: row.expires_at,
    plan: isPlanId(row.plan) ? row.plan : 'free',
    addons: Object.freeze(JSON.parse(row.addons) as Addon[]) as Addon[],
    permission: 'read-write' as const,
    keyScope: 'full' as const,
    profileIds: row.profile_access ? (JSON.parse(row.profile_access) as string[]) : null,
  });
}

/**
 * Sets the caller's own password. Signed in by session with a password already set, the current one is
 * asked for (a borrowed, unlocked browser must not take the account over); with an API key the key is
 * the proof. Every other session of the user ends.
 */
export async function changeOwnPassword(
  ctx: AppContext,
  caller: Principal,
  input: { currentPassword?: string; newPassword: string },
): Promise<void> {
  const next = checkNewPassword(input.newPassword, 'newPassword');
  const stored = await findPasswordHash(ctx.db.kysely, caller.userId);
  if (caller.sessionId && stored) {
    if (!input.currentPassword || !(await verifyPassword(input.currentPassword, stored))) {
      throw forbidden('wrong_password', 'The current password is wrong');
    }
  }
  const hash = await hashPassword(next);
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await storePassword(tx, caller.userId, hash, now);
    await deleteUserSessions(tx, caller.userId, caller.sessionId ?? null);
  });
}

/** The admin CLI's `users set-password`: any user by email; every session of theirs ends. */
export async function setPasswordByEmail(ctx: AppContext, email: string, password: string): Promise<UserRow> {
  const user = await findUserByEmail(ctx.db.kysely, email.trim().toLowerCase());
  if (!user) throw new AppError('not_found', 'user_not_found', `No user with email ${email}`);
  const hash = await hashPassword(checkNewPassword(password));
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await storePassword(tx, user.user_id, hash, now);
    await deleteUserSessions(tx, user.user_id, null);
  });
  return user;
}

/** The signed-in user (GET /v1/auth/session). */
export async function sessionUser(ctx: AppContext, caller: Principal): Promise<UserRow> {
  const user = await findUser(ctx.db.kysely, caller.userId);
  if (!user) throw new AppError('unauthenticated', 'unauthorized', 'Your session has ended: sign in again');
  return user;
}
