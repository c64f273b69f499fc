import type { AppContext } from '../../context.js';
import { listAccounts } from '../../store/accounts.js';
import { accountSnapshotsOf } from '../../store/analytics-read.js';
import { presentAccount } from '../present/accounts.js';
import type { Principal } from '../principal.js';
import { assertAnalyticsAddon, assertRange, parseDateParam } from './scope.js';

const DAY_MS = 86_400_000;

/** The first day of the period `date` (YYYY-MM-DD) falls in: itself, its week's Monday, its month's first. */
function periodOf(date: string, granularity: 'daily' | 'weekly' | 'monthly'): string {
  if (granularity === 'monthly') return `${date.slice(0, 7)}-01`;
  if (granularity === 'daily') return date;
  const d = new Date(`${date}T00:00:00Z`);
  return new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * DAY_MS).toISOString().slice(0, 10);
}

/**
 * GET /v1/accounts/follower-stats: the daily follower reads of the caller's accounts in the range
 * (default the last 30 days), the last read of each period, and per account the growth over the range
 * (last read minus first) and its percentage of the first.
 */
export async function getFollowerStats(
  ctx: AppContext,
  caller: Principal,
  q: {
    accountIds?: string;
    profileId?: string;
    fromDate?: string;
    toDate?: string;
    granularity?: 'daily' | 'weekly' | 'monthly';
  },
) {
  assertAnalyticsAddon(caller);
  const now = ctx.clock.now();
  const from = parseDateParam(q.fromDate, 'fromDate') ?? new Date(now.getTime() - 30 * DAY_MS);
  const to = parseDateParam(q.toDate, 'toDate', true) ?? now;
  assertRange(from, to);
  const granularity = q.granularity ?? 'daily';
  const wanted = q.accountIds
    ? new Set(
        q.accountIds
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
    : null;
  const accounts = (
    await listAccounts(ctx.db.kysely, { tenantId: caller.tenantId, profileIds: caller.profileIds })
  ).filter((a) => (!wanted || wanted.has(a.account_id)) && (!q.profileId || a.profile_id === q.profileId));
  const snapshots = await accountSnapshotsOf(
    ctx.db.kysely,
    accounts.map((a) => a.account_id),
    from.toISOString(),
    to.toISOString(),
  );
  const byAccount = new Map<string, { date: string; followers: number }[]>();
  const counts = new Map<string, number>();
  for (const s of snapshots) {
    const followers = s.followers ?? s.subscribers;
    if (followers === null) continue;
    counts.set(s.account_id, (counts.get(s.account_id) ?? 0) + 1);
    const series = byAccount.get(s.account_id) ?? [];
    const date = periodOf(s.collected_at.slice(0, 10), granularity);
    if (series.length && series[series.length - 1]!.date === date)
      series[series.length - 1]!.followers = Number(followers);
    else series.push({ date, followers: Number(followers) });
    byAccount.set(s.account_id, series);
  }
  return {
    accounts: accounts.map((a) => {
      const series = byAccount.get(a.account_id) ?? [];
      const first = series[0]?.followers;
      const last = series[series.length - 1]?.followers;
      const growth = first !== undefined && last !== undefined ? last - first : 0;
      const row = a as typeof a & { followers_count?: number | null; followers_updated_at?: string | null };
      return {
        ...presentAccount(a, { hasAnalyticsAccess: true }),
        currentFollowers:
          row.followers_count === null || row.followers_count === undefined ? null : Number(row.followers_count),
        lastUpdated: row.followers_updated_at ?? null,
        growth,
        growthPercentage: first ? Math.round((growth / first) * 10_000) / 100 : 0,
        dataPoints: counts.get(a.account_id) ?? 0,
      };
    }),
    stats: Object.fromEntries(accounts.map((a) => [a.account_id, byAccount.get(a.account_id) ?? []])),
    dateRange: { from: from.toISOString(), to: to.toISOString() },
    granularity,
  };
}
