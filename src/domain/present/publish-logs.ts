import type { AccountTable, PostTable, PostTargetTable } from '../../store/schema.js';
import type { PublishLogRow } from '../../store/publish-logs.js';

function parse(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** A publishing log entry as the API shows it (reference §4.10 `PostLog`). */
export function presentLog(row: PublishLogRow) {
  return {
    _id: row.log_id,
    userId: row.tenant_id,
    profileId: row.profile_id,
    postId: row.post_id,
    accountId: row.account_id,
    accountUsername: row.account_username,
    platform: row.platform,
    action: row.action,
    status: row.status,
    statusCode: row.status_code,
    endpoint: row.endpoint,
    request: parse(row.request),
    response: parse(row.response),
    durationMs: row.duration_ms,
    attemptNumber: row.attempt_number,
    createdAt: row.created_at,
  };
}

/** The detail variant: post and account populated, plus `metadata`. */
export function presentLogDetail(
  row: PublishLogRow,
  post: PostTable | null,
  targets: PostTargetTable[],
  account: AccountTable | null,
) {
  return {
    ...presentLog(row),
    postId: post
      ? {
          _id: post.post_id,
          content: post.content,
          status: post.status,
          scheduledFor: post.scheduled_for,
          platforms: targets.map((t) => ({
            platform: t.platform,
            accountId: t.account_id,
            status: t.status,
            platformPostId: t.platform_post_id,
            platformPostUrl: t.platform_post_url,
            errorMessage: t.error_message,
            errorCategory: t.error_category,
          })),
          mediaItems: JSON.parse(post.media_items),
        }
      : row.post_id,
    accountId: account
      ? {
          _id: account.account_id,
          platform: account.platform,
          username: account.username,
          displayName: account.display_name ?? account.username,
        }
      : row.account_id,
    metadata: parse(row.metadata),
  };
}
