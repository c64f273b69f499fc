import { forbidden, notFound } from '../errors.js';
import type { Addon, PlanId } from './plans.js';

/** Who is calling: resolved once per request from the API key or session cookie (http/auth.ts). */
export interface Principal {
  userId: string;
  /** The owner whose data this caller works on. Every query filters on it. */
  tenantId: string;
  /** The API key's id; for a dashboard session, the session's id. */
  apiKeyId: string;
  /** Set when the caller signed in with a password (a session cookie), not an API key. */
  sessionId?: string;
  /** When that session ends. */
  sessionExpiresAt?: string;
  plan: PlanId;
  addons: Addon[];
  permission: 'read-write' | 'read';
  /** The key's own scope: 'profiles' keys never manage what spans the account (keys, invites). */
  keyScope: 'full' | 'profiles';
  /** Profiles this caller may see: null = all of the tenant's; else the intersection of key scope and membership. */
  profileIds: string[] | null;
  /** SQLite: the directory version the key was checked under, reused by the request's directory reads. */
  directoryVersion?: number;
}

export function canSeeProfile(p: Principal, profileId: string): boolean {
  return p.profileIds === null || p.profileIds.includes(profileId);
}

/** A profile outside the caller's scope is reported exactly like a missing one: no existence leak. */
export function assertProfileVisible(p: Principal, profileId: string): void {
  if (!canSeeProfile(p, profileId)) throw notFound('Profile', 'profile_not_found');
}

/**
 * API keys and invitations span the whole account: a profile-scoped key listed and revoked the owner's
 * full keys, so managing them needs a key whose own scope is full.
 */
export function assertFullScopeKey(p: Pick<Principal, 'keyScope'>): void {
  if (p.keyScope !== 'full') {
    throw forbidden(
      'full_scope_key_required',
      'This endpoint manages the whole account: use an API key with scope "full"',
    );
  }
}

/** Refuses a read-only key for a request that changes something. */
export function assertWriteAllowed(p: Pick<Principal, 'permission'>): void {
  if (p.permission === 'read') throw forbidden('read_only_key', 'This API key is read-only');
}

/** Intersection of two optional profile restrictions (null = unrestricted). */
export function intersectScopes(a: string[] | null, b: string[] | null): string[] | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.filter((id) => b.includes(id));
}
