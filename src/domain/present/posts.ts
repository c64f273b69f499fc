import type { FirstCommentResult } from '../../platforms/types.js';
import type { CalendarPostRow } from '../../store/posts.js';
import type { AccountTable, PostRecyclingTable, PostTable, PostTargetTable } from '../../store/schema.js';
import type { RecyclingConfig } from '../recycling/config.js';

/** A post with its targets and the accounts they point at: what the API returns. */
export interface PostView {
  post: PostTable;
  targets: PostTargetTable[];
  accounts: Map<string, AccountTable>;
  /** Its recycling configuration and state, when it has one. */
  recycling?: PostRecyclingTable;
  /** The post this one is a recycled copy of. */
  recycledFromPostId?: string;
}

const json = <T>(text: string | null, fallback: T): T => (text ? (JSON.parse(text) as T) : fallback);
const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

function presentFirstComment(r: FirstCommentResult) {
  return r.status === 'posted'
    ? { status: r.status, commentId: opt(r.commentId) }
    : { status: r.status, errorMessage: r.errorMessage };
}

function presentAccount(accountId: string, platform: string, account: AccountTable | undefined) {
  if (!account) return { _id: accountId, platform, username: '', displayName: '', isActive: false };
  return {
    _id: account.account_id,
    platform: account.platform,
    username: account.username,
    displayName: account.display_name ?? account.username,
    isActive: account.is_active === 1 && account.disconnected_at === null,
  };
}

function presentTarget(t: PostTargetTable, accounts: Map<string, AccountTable>) {
  return {
    _id: t.target_id,
    platform: t.platform,
    accountId: presentAccount(t.account_id, t.platform, accounts.get(t.account_id)),
    customContent: opt(t.custom_content),
    customMedia: t.custom_media ? json<Record<string, unknown>[]>(t.custom_media, []) : undefined,
    scheduledFor: opt(t.scheduled_for),
    platformSpecificData: json<Record<string, unknown>>(t.platform_specific_data, {}),
    status: t.status,
    platformPostId: opt(t.platform_post_id),
    platformPostUrl: opt(t.platform_post_url),
    publishedAt: opt(t.published_at),
    errorMessage: opt(t.error_message),
    errorCategory: opt(t.error_category),
    errorSource: opt(t.error_source),
    firstCommentResult: t.first_comment_result
      ? presentFirstComment(JSON.parse(t.first_comment_result) as FirstCommentResult)
      : undefined,
  };
}

/** Reference §4.5 RecyclingState: the configuration and the read-only rotation fields. */
function presentRecycling(row: PostRecyclingTable) {
  const config = JSON.parse(row.config) as RecyclingConfig;
  return {
    enabled: row.active === 1,
    gap: config.gap,
    gapFreq: config.gapFreq,
    startDate: opt(config.startDate),
    expireCount: opt(config.expireCount),
    expireDate: opt(config.expireDate),
    contentVariations: config.contentVariations,
    contentVariationIndex: row.variation_index,
    recycleCount: row.recycle_count,
    nextRecycleAt: opt(row.next_recycle_at),
    lastRecycledAt: opt(row.last_recycled_at),
  };
}

/** Row -> the public Post (reference §4.5): `_id`, camelCase, times in UTC with milliseconds. */
export function presentPost({ post, targets, accounts, recycling, recycledFromPostId }: PostView) {
  const options = json<Record<string, unknown>>(post.options, {});
  return {
    _id: post.post_id,
    userId: post.created_by,
    title: opt(post.title),
    content: post.content,
    mediaItems: json<Record<string, unknown>[]>(post.media_items, []),
    platforms: targets.map((t) => presentTarget(t, accounts)),
    scheduledFor: opt(post.scheduled_for),
    timezone: post.timezone,
    status: post.status,
    publishedAt: opt(post.published_at),
    tags: json<string[]>(post.tags, []),
    hashtags: json<string[]>(post.hashtags, []),
    mentions: json<string[]>(post.mentions, []),
    visibility: opt(post.visibility),
    metadata: json<Record<string, unknown>>(post.metadata, {}),
    crosspostingEnabled: options.crosspostingEnabled as boolean | undefined,
    tiktokSettings: options.tiktokSettings as Record<string, unknown> | undefined,
    recycling: recycling ? presentRecycling(recycling) : undefined,
    recycledFromPostId,
    queuedFromProfile: opt(post.queued_from_profile),
    queueId: opt(post.queue_id),
    createdAt: post.created_at,
    updatedAt: post.updated_at,
  };
}

/** A post as `GET /v1/posts/calendar` lists it: what a calendar entry shows. */
export function presentCalendarPost(row: CalendarPostRow) {
  return {
    _id: row.post_id,
    title: opt(row.title),
    excerpt: row.excerpt,
    status: row.status,
    scheduledFor: opt(row.scheduled_for),
    createdAt: row.created_at,
    platforms: row.platforms,
  };
}
