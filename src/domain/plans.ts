/** Plan limits from the spec's "Rate limits by plan" table. `null` means unlimited. */
const PLANS = {
  free: { name: 'Free', requestsPerMinute: 60, profiles: 2, postsPerMonth: 20 },
  build: { name: 'Build', requestsPerMinute: 120, profiles: 10, postsPerMonth: 120 },
  accelerate: { name: 'Accelerate', requestsPerMinute: 600, profiles: 50, postsPerMonth: null },
  unlimited: { name: 'Unlimited', requestsPerMinute: 1200, profiles: null, postsPerMonth: null },
} as const satisfies Record<
  string,
  { name: string; requestsPerMinute: number; profiles: number | null; postsPerMonth: number | null }
>;

export type PlanId = keyof typeof PLANS;

export const ADDONS = ['analytics', 'inbox'] as const;
export type Addon = (typeof ADDONS)[number];

export function isPlanId(value: string): value is PlanId {
  return Object.hasOwn(PLANS, value);
}

export function planOf(value: string) {
  return isPlanId(value) ? PLANS[value] : PLANS.free;
}
