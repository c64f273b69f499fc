import type { AccountTable } from '../../store/schema.js';

/**
 * The body of `analytics.synced` (the client's WebhookPayloadAnalyticsSynced): which account's collection
 * completed, when, and how many posts it wrote. No metrics and no cursor: `GET /v1/analytics/delta` with
 * the receiver's own cursor reads what changed.
 */
export function syncedEventData(
  account: Pick<AccountTable, 'account_id' | 'profile_id' | 'platform' | 'username'>,
  syncedAt: Date,
  postsUpdated: number,
) {
  return {
    account: {
      accountId: account.account_id,
      profileId: account.profile_id,
      platform: account.platform,
      username: account.username,
    },
    sync: { syncedAt: syncedAt.toISOString(), postsUpdated },
  };
}
