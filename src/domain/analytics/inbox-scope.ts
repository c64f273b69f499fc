import type { AppContext } from '../../context.js';
import { invalidFields } from '../../errors.js';
import { listAccounts, type AccountRow } from '../../store/accounts.js';
import type { InboxAnalyticsFilter } from '../../store/inbox-analytics-filter.js';
import { INBOX_SOURCES } from '../../store/migrations/0310-inbox-analytics.js';
import type { Principal } from '../principal.js';
import { parseDateParam } from './scope.js';

const DAY_MS = 86_400_000;
/** The hosted API's longest range for the inbox analytics. */
const MAX_INBOX_DAYS = 365;

export interface InboxQuery {
  fromDate?: string;
  toDate?: string;
  accountId?: string;
  platform?: string;
  profileId?: string;
  source?: string;
}

export interface InboxScope {
  filter: InboxAnalyticsFilter;
  /** The caller's accounts the filters keep, by id. */
  accounts: Map<string, AccountRow>;
  from: string;
  to: string;
}

/** A day parameter as YYYY-MM-DD (an ISO date-time counts for its UTC day); a 400 naming the field otherwise. */
function dayOf(value: string | undefined, field: string): string | undefined {
  return parseDateParam(value, field)?.toISOString().slice(0, 10);
}

/**
 * The accounts and days an inbox analytics request counts: the caller's accounts (a profile-scoped key
 * sees its profiles' only), narrowed by `profileId`, `platform` and `accountId`; `fromDate` (required)
 * to `toDate` (default today, UTC), both whole UTC days, at most 365 days; `source` one of the lineage
 * names. Bad values are a 400 before anything is read.
 */
export async function inboxScope(ctx: AppContext, caller: Principal, q: InboxQuery): Promise<InboxScope> {
  const from = dayOf(q.fromDate, 'fromDate');
  if (!from) throw invalidFields('fromDate is required (YYYY-MM-DD)', { fromDate: ['is required'] });
  const to = dayOf(q.toDate, 'toDate') ?? ctx.clock.now().toISOString().slice(0, 10);
  if (from > to) throw invalidFields('fromDate must not be after toDate', { fromDate: ['must not be after toDate'] });
  if ((Date.parse(to) - Date.parse(from)) / DAY_MS >= MAX_INBOX_DAYS)
    throw invalidFields(`The date range is at most ${MAX_INBOX_DAYS} days`, {
      fromDate: [`must be within ${MAX_INBOX_DAYS} days of toDate`],
    });
  const source = q.source && q.source !== 'all' ? q.source : undefined;
  if (source && !(INBOX_SOURCES as readonly string[]).includes(source))
    throw invalidFields(`Unknown source "${source}"`, { source: [`must be one of ${INBOX_SOURCES.join(', ')}`] });
  const platform = q.platform && q.platform !== 'all' ? q.platform : undefined;
  const profileId = q.profileId && q.profileId !== 'all' ? q.profileId : undefined;

  const all = await listAccounts(ctx.db.kysely, { tenantId: caller.tenantId, profileIds: caller.profileIds });
  const kept = all.filter(
    (a) =>
      (!platform || a.platform === platform) &&
      (!profileId || a.profile_id === profileId) &&
      (!q.accountId || a.account_id === q.accountId),
  );
  // A caller who sees the whole tenant and filters nothing reads the tenant's rows without a list of ids.
  const everything = caller.profileIds === null && !platform && !profileId && !q.accountId;
  return {
    filter: {
      tenantId: caller.tenantId,
      accountIds: everything ? null : kept.map((a) => a.account_id),
      fromDay: from,
      toDay: to,
      source,
    },
    accounts: new Map(kept.map((a) => [a.account_id, a])),
    from,
    to,
  };
}

/** Every UTC day from `from` to `to`, both included. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}
