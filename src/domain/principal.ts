import { forbidden, notFound } from '../errors.js';
import type { Addon, PlanId } from './plans.js';

/** Who is calling: resolved once per request from the API key (http/auth.ts). */
export interface Principal {
  userId: string;
  /** The owner whose data this caller works on. Every query filters on it. */
  tenantId: string;
  apiKeyId: string;
  plan: PlanId;
  addons: Addon[];
  permission: 'read-write' | 'read';
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

export function assertAddon(p: Principal, addon: Addon): void {
  if (!p.addons.includes(addon)) {
    throw forbidden(`${addon}_addon_required`, `The ${addon} add-on is required for this endpoint`);
  }
}

/** Intersection of two optional profile restrictions (null = unrestricted). */
export function intersectScopes(a: string[] | null, b: string[] | null): string[] | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.filter((id) => b.includes(id));
}
