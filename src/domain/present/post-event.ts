import type { PostTable, PostTargetTable } from '../../store/schema.js';

/**
 * The `post` object of post.* webhook events (reference §9): note `id`, not `_id`. Built from the rows
 * as they are in the transaction that emits the event, so the webhook always agrees with the API.
 */
export function postEventData(post: PostTable, targets: PostTargetTable[]) {
  return {
    post: {
      id: post.post_id,
      content: post.content,
      status: post.status,
      scheduledFor: post.scheduled_for,
      publishedAt: post.published_at,
      platforms: targets.map((t) => ({
        platform: t.platform,
        accountId: t.account_id,
        status: t.status,
        platformPostId: t.platform_post_id,
        publishedUrl: t.platform_post_url,
        error: t.error_message,
        errorCategory: t.error_category,
      })),
    },
  };
}
