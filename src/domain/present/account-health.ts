import type { Assessment } from '../accounts/health.js';
import type { AccountRow } from '../../store/accounts.js';

const scopesOf = (row: AccountRow) => (row.scopes ? row.scopes.split(/[\s,]+/).filter(Boolean) : []);

/** GET /v1/accounts/health: one entry per account and the counts by status. */
export function presentAccountsHealth(assessed: { row: AccountRow; assessment: Assessment }[], addons: string[]) {
  const accounts = assessed.map(({ row, assessment: a }) => ({
    accountId: row.account_id,
    platform: row.platform,
    username: row.username,
    displayName: row.display_name ?? row.username,
    profileId: row.profile_id,
    status: a.status,
    canPost: a.status !== 'error',
    canFetchAnalytics: a.status !== 'error' && addons.includes('analytics'),
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
export function presentAccountHealth(row: AccountRow, a: Assessment, addons: string[]) {
  return {
    accountId: row.account_id,
    platform: row.platform,
    username: row.username,
    displayName: row.display_name ?? row.username,
    status: a.status,
    tokenStatus: { valid: a.tokenValid, expiresAt: row.token_expires_at, expiresIn: a.expiresIn, needsRefresh: a.needsRefresh },
    permissions: {
      posting: scopesOf(row),
      analytics: [] as string[],
      optional: [] as string[],
      canPost: a.status !== 'error',
      canFetchAnalytics: a.status !== 'error' && addons.includes('analytics'),
      missingRequired: [] as string[],
    },
    issues: a.issues,
    recommendations: a.recommendations,
  };
}
