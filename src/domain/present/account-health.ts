import type { AnalyticsReadiness, Assessment } from '../accounts/health.js';
import type { AccountRow } from '../../store/accounts.js';

const scopesOf = (row: AccountRow) => (row.scopes ? row.scopes.split(/[\s,]+/).filter(Boolean) : []);

/**
 * Analytics can be read when the account works, the tenant has the add-on, the platform has insights
 * here and every scope those reads need was granted.
 */
const canFetch = (a: Assessment, r: AnalyticsReadiness, addons: string[]) =>
  a.status !== 'error' && addons.includes('analytics') && r.supported && r.missing.length === 0;

/** GET /v1/accounts/health: one entry per account and the counts by status. */
export function presentAccountsHealth(
  assessed: { row: AccountRow; assessment: Assessment; analytics: AnalyticsReadiness }[],
  addons: string[],
) {
  const accounts = assessed.map(({ row, assessment: a, analytics: r }) => ({
    accountId: row.account_id,
    platform: row.platform,
    username: row.username,
    displayName: row.display_name ?? row.username,
    profileId: row.profile_id,
    status: a.status,
    canPost: a.status !== 'error',
    canFetchAnalytics: canFetch(a, r, addons),
    tokenValid: a.tokenValid,
    tokenExpiresAt: row.token_expires_at,
    needsReconnect: a.needsReconnect,
    issues: a.issues,
  }));
  const count = (s: string) => accounts.filter((a) => a.status === s).length;
  return {
    summary: {
      total: accounts.length,
      healthy: count('healthy'),
      warning: count('warning'),
      error: count('error'),
      needsReconnect: accounts.filter((a) => a.needsReconnect).length,
    },
    accounts,
  };
}

/** GET /v1/accounts/{id}/health */
export function presentAccountHealth(
  row: AccountRow,
  a: Assessment,
  r: AnalyticsReadiness,
  addons: string[],
  inboxMissing: string[] = [],
) {
  return {
    accountId: row.account_id,
    platform: row.platform,
    username: row.username,
    displayName: row.display_name ?? row.username,
    status: a.status,
    tokenStatus: {
      valid: a.tokenValid,
      expiresAt: row.token_expires_at,
      expiresIn: a.expiresIn,
      needsRefresh: a.needsRefresh,
    },
    permissions: {
      posting: scopesOf(row),
      analytics: r.required.filter((s) => !r.missing.includes(s)),
      optional: [] as string[],
      canPost: a.status !== 'error',
      canFetchAnalytics: canFetch(a, r, addons),
      // Posting scopes are checked by publishing itself; these are the analytics reads' missing ones and,
      // for a user with the inbox add-on, the inbox's.
      missingRequired: [...new Set([...r.missing, ...inboxMissing])],
    },
    issues: a.issues,
    recommendations: a.recommendations,
  };
}
