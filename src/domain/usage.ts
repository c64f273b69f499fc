import { notFound } from '../errors.js';
import { startOfUtcMonth } from '../lib/time.js';
import type { Db } from '../store/db.js';
import { countPostsSince } from '../store/posts.js';
import { countProfiles } from '../store/profiles.js';
import { findUser } from '../store/users.js';
import { planOf } from './plans.js';
import type { Principal } from './principal.js';

/**
 * `GET /v1/usage-stats`: the tenant's plan, limits (-1 = unlimited) and this month's usage. Uploads are
 * posts created since the first of the month (UTC), the same count the posts-per-month limit uses;
 * members see their team's numbers.
 */
export async function usageStats(db: Db, caller: Principal, now: Date) {
  const owner = await findUser(db.kysely, caller.tenantId);
  if (!owner) throw notFound('User', 'user_not_found');
  const plan = planOf(owner.plan);
  const monthStart = startOfUtcMonth(now);
  const [uploads, profiles] = await Promise.all([
    countPostsSince(db.kysely, caller.tenantId, monthStart.toISOString()),
    countProfiles(db.kysely, caller.tenantId),
  ]);
  return {
    planName: plan.name,
    billingPeriod: 'monthly' as const,
    signupDate: owner.created_at,
    isInvitedUser: caller.userId !== caller.tenantId,
    limits: { uploads: plan.postsPerMonth ?? -1, profiles: plan.profiles ?? -1 },
    usage: { uploads, profiles, lastReset: monthStart.toISOString() },
  };
}
