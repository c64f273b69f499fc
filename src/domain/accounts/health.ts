import type { AppContext } from '../../context.js';
import type { AccountRow } from '../../store/accounts.js';
import { listAccounts as listAccountRows } from '../../store/accounts.js';
import type { Principal } from '../principal.js';
import { presentAccountHealth, presentAccountsHealth } from '../present/account-health.js';
import { getVisibleAccount } from './manage.js';
import { isPlatform } from '../../platforms/catalogue.js';
import { inboxSyncFailures, type SyncFailure } from '../inbox/list-meta.js';

/** What analytics an account can read: whether its platform has insights here, and the scopes it lacks for them. */
export interface AnalyticsReadiness {
  supported: boolean;
  required: string[];
  missing: string[];
}

function analyticsReadiness(ctx: AppContext, row: AccountRow): AnalyticsReadiness {
  const analytics = isPlatform(row.platform) ? ctx.platforms.get(row.platform)?.analytics : undefined;
  if (!analytics) return { supported: false, required: [], missing: [] };
  const required = [...(analytics.scopes ?? [])];
  // A platform that never said which scopes it granted: nothing can be called missing.
  const granted = row.scopes === null ? null : new Set(row.scopes.split(/[\s,]+/).filter(Boolean));
  return { supported: true, required, missing: granted ? required.filter((s) => !granted.has(s)) : [] };
}

/**
 * The inbox scopes an account was not granted (none when the platform never said which it granted):
 * for a user with the inbox add-on they are an issue, since polls and replies would be refused.
 */
function missingInboxScopes(ctx: AppContext, row: AccountRow): string[] {
  const inbox = isPlatform(row.platform) ? ctx.platforms.get(row.platform)?.inbox : undefined;
  if (!inbox?.scopes || row.scopes === null) return [];
  const granted = new Set(row.scopes.split(/[\s,]+/).filter(Boolean));
  return inbox.scopes(JSON.parse(row.metadata ?? '{}') as Record<string, unknown>).filter((s) => !granted.has(s));
}

/** The assessment with the missing inbox scopes said (a working account becomes a warning). */
function withInbox(a: Assessment, missing: string[]): Assessment {
  if (missing.length === 0) return a;
  return {
    ...a,
    status: a.status === 'healthy' ? 'warning' : a.status,
    issues: [...a.issues, `The inbox needs permissions this account did not grant: ${missing.join(', ')}`],
    recommendations: [...a.recommendations, 'Reconnect the account to grant the inbox permissions'],
  };
}

/** The assessment with a failing inbox poll said: the account works for posting, but its inbox is stale. */
function withSyncFailure(a: Assessment, failure: SyncFailure | undefined): Assessment {
  if (!failure) return a;
  return {
    ...a,
    status: a.status === 'healthy' ? 'warning' : a.status,
    issues: [...a.issues, `The inbox sync fails since ${failure.since}: ${failure.error}`],
    recommendations: [
      ...a.recommendations,
      failure.code === 'auth'
        ? 'Reconnect the account'
        : 'Check the account on the platform; the inbox retries by itself',
    ],
  };
}

/** Tokens expiring sooner than this are a warning (the refresh job should have renewed them). */
const WARN_MS = 24 * 3600_000;

export interface Assessment {
  status: 'healthy' | 'warning' | 'error';
  tokenValid: boolean;
  needsReconnect: boolean;
  needsRefresh: boolean;
  expiresIn: number | null;
  issues: string[];
  recommendations: string[];
}

function assess(row: AccountRow, now: Date): Assessment {
  const issues: string[] = [];
  const recommendations: string[] = [];
  const expiresAt = row.token_expires_at ? new Date(row.token_expires_at) : null;
  const expiresIn = expiresAt ? Math.round((expiresAt.getTime() - now.getTime()) / 1000) : null;
  const expired = expiresIn !== null && expiresIn <= 0;
  const canRefresh = row.refresh_token !== null;
  const lost =
    row.is_active !== 1
      ? 'The account was disconnected: its token expired or was revoked'
      : expired && !canRefresh
        ? 'The access token expired and cannot be refreshed'
        : null;
  if (lost) {
    issues.push(lost);
    recommendations.push('Reconnect the account');
    return {
      status: 'error',
      tokenValid: false,
      needsReconnect: true,
      needsRefresh: false,
      expiresIn,
      issues,
      recommendations,
    };
  }
  const needsRefresh = expiresIn !== null && expiresIn * 1000 < WARN_MS;
  if (expired) {
    issues.push('The access token expired; it will be refreshed before the next publish');
    return {
      status: 'warning',
      tokenValid: false,
      needsReconnect: false,
      needsRefresh: true,
      expiresIn,
      issues,
      recommendations,
    };
  }
  if (needsRefresh && !canRefresh) {
    issues.push('The access token expires within 24 hours and cannot be refreshed');
    recommendations.push('Reconnect the account before the token expires');
    return {
      status: 'warning',
      tokenValid: true,
      needsReconnect: false,
      needsRefresh,
      expiresIn,
      issues,
      recommendations,
    };
  }
  return {
    status: 'healthy',
    tokenValid: true,
    needsReconnect: false,
    needsRefresh,
    expiresIn,
    issues,
    recommendations,
  };
}

/** GET /v1/accounts/health */
export async function accountsHealth(
  ctx: AppContext,
  caller: Principal,
  query: { profileId?: string; platform?: string; status?: 'healthy' | 'warning' | 'error' },
) {
  const now = ctx.clock.now();
  let profileIds = caller.profileIds;
  if (query.profileId)
    profileIds = profileIds === null || profileIds.includes(query.profileId) ? [query.profileId] : [];
  const rows = await listAccountRows(ctx.db.kysely, {
    tenantId: caller.tenantId,
    profileIds,
    platform: query.platform,
  });
  const inbox = caller.addons.includes('inbox');
  const failing = inbox
    ? await inboxSyncFailures(
        ctx,
        rows.filter((r) => r.is_active === 1).map((r) => r.account_id),
      )
    : new Map<string, SyncFailure>();
  const assessed = rows
    .map((row) => {
      const inboxMissing = inbox ? missingInboxScopes(ctx, row) : [];
      const assessment = withSyncFailure(withInbox(assess(row, now), inboxMissing), failing.get(row.account_id));
      return { row, assessment, analytics: analyticsReadiness(ctx, row) };
    })
    .filter(({ assessment }) => !query.status || assessment.status === query.status);
  return presentAccountsHealth(assessed, caller.addons);
}

/** GET /v1/accounts/{id}/health */
export async function accountHealth(ctx: AppContext, caller: Principal, accountId: string) {
  const row = await getVisibleAccount(ctx, caller, accountId);
  const inbox = caller.addons.includes('inbox');
  const inboxMissing = inbox ? missingInboxScopes(ctx, row) : [];
  const failure =
    inbox && row.is_active === 1 ? (await inboxSyncFailures(ctx, [row.account_id])).get(row.account_id) : undefined;
  const assessment = withSyncFailure(withInbox(assess(row, ctx.clock.now()), inboxMissing), failure);
  return presentAccountHealth(row, assessment, analyticsReadiness(ctx, row), caller.addons, inboxMissing);
}
