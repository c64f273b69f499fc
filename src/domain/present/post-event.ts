import type { AccountTable, PostTable, PostTargetTable } from '../../store/schema.js';

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

/**
 * The body of `post.platform.published`, `post.platform.failed` and `post.platform.deleted` (OpenAPI
 * WebhookPayloadPostPlatform): the post as it is at that moment (its status may still be `publishing`
 * while other targets are in flight), the one target that reached the outcome, and its account.
 */
export function postPlatformEventData(
  post: PostTable,
  targets: PostTargetTable[],
  target: PostTargetTable,
  account: Pick<AccountTable, 'account_id' | 'platform' | 'username' | 'display_name'> | undefined,
  outcome: { status: 'published' | 'failed' | 'deleted'; deletedAt?: string },
) {
  const metadata = JSON.parse(post.metadata || '{}') as Record<string, unknown>;
  const { post: body } = postEventData(post, targets);
  return {
    post: { ...body, ...(Object.keys(metadata).length > 0 ? { metadata } : {}) },
    platform: {
      name: target.platform,
      status: outcome.status,
      // The platform's id and URL on published and deleted, the error on failed only (as the client reads them).
      ...(outcome.status === 'failed'
        ? { error: target.error_message ?? 'Publishing failed' }
        : {
            ...(target.platform_post_id ? { platformPostId: target.platform_post_id } : {}),
            ...(target.platform_post_url ? { publishedUrl: target.platform_post_url } : {}),
          }),
      ...(outcome.deletedAt ? { deletedAt: outcome.deletedAt } : {}),
    },
    account: {
      accountId: target.account_id,
      platform: target.platform,
      username: account?.username ?? '',
      ...(account?.display_name ? { displayName: account.display_name } : {}),
    },
  };
}

/**
 * The body of `post.external.created` (OpenAPI WebhookPayloadExternalPost): a post made on the platform
 * outside Herald, as its listing describes it. `post.id` is the platform's id, not a Herald post id.
 */
export function externalPostEventData(
  account: Pick<AccountTable, 'account_id' | 'platform' | 'username'>,
  p: { platformPostId: string; platformPostUrl: string | null; content: string; publishedAt: Date },
  media: { type: 'image' | 'video'; url: string } | null | undefined,
) {
  return {
    post: {
      id: p.platformPostId,
      platform: account.platform,
      accountId: account.account_id,
      url: p.platformPostUrl,
      content: p.content,
      mediaType: media?.type ?? 'text',
      mediaItems: media ? [{ type: media.type, url: media.url }] : [],
      thumbnailUrl: media?.type === 'image' ? media.url : null,
      publishedAt: p.publishedAt.toISOString(),
      source: 'external',
    },
    account: {
      id: account.account_id,
      accountId: account.account_id,
      platform: account.platform,
      username: account.username,
    },
  };
}
