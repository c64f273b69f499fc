import { Type } from '@sinclair/typebox';
import { AppError } from '../errors.js';

/*
 * What the hosted API's account insights routes of TikTok and LinkedIn pages share (the shape of
 * /v1/analytics/instagram/account-insights): the answer's schema, the 412 of an account that never
 * granted the scopes the read needs, and the follower flow Herald computes from the follower counts its
 * daily account read records (ToolCall.followerHistory), since neither platform reports unfollows.
 */

/** Why a metric asked for is not in `metrics` (the hosted API's reasons, the ones Herald gives). */
export type UnavailableReason = 'no_data' | 'permission_missing';

const ScopeStatus = Type.Object({
  hasAnalyticsScope: Type.Boolean(),
  requiresReauthorization: Type.Boolean(),
  reauthorizeUrl: Type.Union([Type.String(), Type.Null()]),
  missingScopes: Type.Array(Type.String()),
});

/** The tool's `errors` entry for the 412 `scopeMissing` throws. */
export const SCOPE_MISSING_ERRORS = {
  412: Type.Object({
    success: Type.Literal(false),
    error: Type.String(),
    code: Type.String(),
    scopeStatus: ScopeStatus,
    details: Type.Optional(Type.Object({}, { additionalProperties: true })),
  }),
};

/** The scopes of `needed` the account's grant lacks (none when the grant's scopes are unknown). */
export function missingScopes(granted: string[] | null | undefined, needed: readonly string[]): string[] {
  if (!granted) return [];
  return needed.filter((s) => !granted.includes(s));
}

/** 412 `analytics_scope_missing`, with a URL that reconnects the account asking for `scopes` as well. */
export async function scopeMissing(
  platformName: string,
  scopes: readonly string[],
  reconnectUrl: (extra: readonly string[]) => Promise<string | null>,
): Promise<AppError> {
  const scopeStatus = {
    hasAnalyticsScope: false,
    requiresReauthorization: true,
    reauthorizeUrl: await reconnectUrl(scopes),
    missingScopes: [...scopes],
  };
  return new AppError(
    'precondition_failed',
    'analytics_scope_missing',
    `These insights need a permission the ${platformName} account did not grant (${scopes.join(', ')}): reconnect it.`,
    { scopeStatus },
    { body: { success: false, scopeStatus } },
  );
}

/**
 * The follower count by day over [since, until] (YYYY-MM-DD): the last count recorded each day, and
 * `live` for today when the range reaches it. Days without a reading are left out.
 */
export function dailyFollowers(
  history: { date: string; value: number }[],
  live: number | null,
  range: { since: string; until: string },
  today: string,
): { date: string; value: number }[] {
  const byDay = new Map<string, number>();
  for (const h of history) {
    if (h.date >= range.since && h.date <= range.until) byDay.set(h.date, h.value);
  }
  if (live !== null && today >= range.since && today <= range.until) byDay.set(today, live);
  return [...byDay.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([date, value]) => ({ date, value }));
}

/**
 * Followers gained and lost each day of a daily series: the rise (fall) from the reading before, dated
 * by the later reading. Null under two readings (nothing to compare).
 */
export function followerSteps(
  series: { date: string; value: number }[],
): { gained: { date: string; value: number }[]; lost: { date: string; value: number }[] } | null {
  if (series.length < 2) return null;
  const deltas = series.slice(1).map((p, i) => ({ date: p.date, d: p.value - series[i]!.value }));
  return {
    gained: deltas.map(({ date, d }) => ({ date, value: Math.max(0, d) })),
    lost: deltas.map(({ date, d }) => ({ date, value: Math.max(0, -d) })),
  };
}
