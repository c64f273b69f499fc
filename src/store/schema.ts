import type { Generated } from 'kysely';

/*
 * Table types for Kysely. Portable column types only: ids and times are text (times as ISO-8601 UTC with
 * milliseconds, which sort correctly as text), booleans are integers 0/1, JSON is text.
 * Each feature adds its tables here and its migration in ./migrations.
 */

export interface UserTable {
  user_id: string;
  /** The owner's user id; equal to user_id for an owner. Every tenant-owned row carries tenant_id. */
  tenant_id: string;
  email: string;
  name: string | null;
  role: 'owner' | 'member';
  /** Plan and add-ons are read from the tenant's owner row. */
  plan: string;
  addons: string;
  /** JSON array of profile ids a member may see; null means all profiles of the tenant. */
  profile_access: string | null;
  created_at: string;
  updated_at: string;
}

/** A user's password (scrypt, lib/password.ts); no row = no password set. */
export interface UserPasswordTable {
  user_id: string;
  password_hash: string;
  updated_at: string;
}

/** A dashboard sign-in session; only the SHA-256 of its cookie token is kept. */
export interface SessionTable {
  session_id: string;
  token_hash: string;
  user_id: string;
  tenant_id: string;
  created_at: string;
  expires_at: string;
}

export interface ApiKeyTable {
  api_key_id: string;
  user_id: string;
  tenant_id: string;
  name: string;
  key_hash: string;
  key_preview: string;
  scope: 'full' | 'profiles';
  profile_ids: string;
  permission: 'read-write' | 'read';
  expires_at: string | null;
  created_at: string;
  deleted_at: string | null;
}

export interface ProfileTable {
  profile_id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  color: string;
  is_default: number;
  created_at: string;
  updated_at: string;
}

export interface AccountTable {
  account_id: string;
  tenant_id: string;
  profile_id: string;
  platform: string;
  platform_user_id: string;
  username: string;
  display_name: string | null;
  profile_url: string | null;
  avatar_url: string | null;
  is_active: number;
  /** Tokens are sealed with AES-256-GCM (lib/crypto SecretBox); never stored in clear. */
  access_token: string | null;
  refresh_token: string | null;
  token_expires_at: string | null;
  scopes: string | null;
  /** JSON object of platform-specific data (page id, chat id, PDS url, organization...). */
  metadata: string;
  created_at: string;
  updated_at: string;
  disconnected_at: string | null;
}

/**
 * Analytics columns of the account table (migration 0150), apart from AccountTable so the many places
 * that build or read accounts need not know them: the latest follower count read and when, and when the
 * next daily read is due (null: at the next scan).
 */
interface AccountMetricsColumns {
  followers_count: Generated<number | null>;
  followers_updated_at: Generated<string | null>;
  metrics_next_at: Generated<string | null>;
  /** Migration 0220: the newest post time the last external-posts sync saw. */
  external_synced_at: Generated<string | null>;
}

/** One row (id 1): moves when an API key, a user or a profile changes (SQLite triggers; store/directory.ts). */
interface DirectoryVersionTable {
  id: number;
  version: number;
}

interface MetaTable {
  key: string;
  value: string;
  created_at: string;
}

export interface JobTable {
  job_id: string;
  task: string;
  payload: string;
  run_at: string;
  attempts: Generated<number>;
  max_attempts: number;
  /** Unique when set: lets a caller replace or cancel "the job for X". */
  key: string | null;
  locked_by: string | null;
  locked_until: string | null;
  last_error: string | null;
  failed_at: string | null;
  created_at: string;
}

export interface EventTable {
  event_id: string;
  tenant_id: string;
  type: string;
  payload: string;
  created_at: string;
}

export interface PostTable {
  post_id: string;
  tenant_id: string;
  created_by: string;
  title: string | null;
  content: string;
  /** JSON array of media items ({type, url, ...}). */
  media_items: string;
  /** draft | scheduled | publishing | published | failed | partial | cancelled */
  status: string;
  scheduled_for: string | null;
  timezone: string;
  published_at: string | null;
  tags: string;
  hashtags: string;
  mentions: string;
  visibility: string | null;
  metadata: string;
  /** JSON object of create-only options kept for display (tiktokSettings, crosspostingEnabled). */
  options: string;
  /** 1: made on the platform outside Herald, imported for analytics (migration 0220). */
  is_external?: number;
  queued_from_profile: string | null;
  queue_id: string | null;
  created_at: string;
  updated_at: string;
}

/** A post's recycling: its configuration and where the rotation stands (domain/recycling). */
export interface PostRecyclingTable {
  post_id: string;
  tenant_id: string;
  /** JSON RecyclingConfig (domain/recycling/config.ts), startDate and expireDate as ISO UTC. */
  config: string;
  /** 1 while recycling is enabled and has not expired (counts toward the 10 per account). */
  active: number;
  /** Copies made so far. */
  recycle_count: number;
  /** Position in contentVariations of the next copy's text. */
  variation_index: number;
  /** When the next copy is made (ISO); null until the post is published, and once recycling stops. */
  next_recycle_at: string | null;
  last_recycled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A copy made by recycling: which post it came from and for which cycle (unique together). */
export interface PostRecycledCopyTable {
  post_id: string;
  source_post_id: string;
  cycle: number;
}

export interface PostTargetTable {
  target_id: string;
  post_id: string;
  tenant_id: string;
  account_id: string;
  /** The account's profile, denormalised for the profileId filter and scoped access. */
  profile_id: string;
  platform: string;
  position: number;
  custom_content: string | null;
  custom_media: string | null;
  platform_specific_data: string;
  scheduled_for: string | null;
  /** pending | publishing | published | failed | unknown | cancelled */
  status: string;
  attempts: number;
  /** sha256 of the text and media URLs this target sends: duplicate detection within 24 hours. */
  content_hash: string;
  platform_post_id: string | null;
  platform_post_url: string | null;
  published_at: string | null;
  error_message: string | null;
  error_category: string | null;
  error_source: string | null;
  error_code: string | null;
  last_attempt_at: string | null;
  /**
   * JSON ThreadProgress (platforms/types.ts): what a thread target posted, root and replies, recorded as
   * each went out (a stopped thread continues after it; unpublish deletes the replies). Null otherwise.
   */
  thread_progress: string | null;
  /** JSON FirstCommentResult (platforms/types.ts) once a first comment was sent or failed; null otherwise. */
  first_comment_result: string | null;
  /** JSON ProcessingHandle while the target is `processing` (platforms/types.ts); else null. */
  processing_handle: string | null;
  /** When the target began waiting for the platform's processing (ISO); else null. */
  processing_since: string | null;
  created_at: string;
  updated_at: string;
}

/** One-time / short-lived connect records (OAuth state, pending data, temp and connect tokens, access codes). */
export interface ConnectTokenTable {
  /** sha256 of the token handed out; the token itself is never stored. */
  token_hash: string;
  kind: 'oauth_state' | 'pending_data' | 'temp_token' | 'connect_token' | 'access_code';
  tenant_id: string;
  user_id: string | null;
  profile_id: string;
  platform: string;
  /** Sealed JSON (SecretBox): may hold platform tokens. */
  data: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface ConnectionLogTable {
  log_id: string;
  tenant_id: string;
  user_id: string | null;
  profile_id: string | null;
  account_id: string | null;
  platform: string;
  /** connect_success | connect_failed | disconnect | reconnect_success | reconnect_failed */
  event_type: string;
  /** oauth | credentials | invitation */
  connection_method: string;
  status: 'success' | 'failed';
  /** JSON {code, message, rawResponse} or null. */
  error: string | null;
  /** JSON {displayName, username, profilePicture, permissions, tokenExpiresAt, accountType} or null. */
  success: string | null;
  context: string;
  duration_ms: number;
  metadata: string;
  created_at: string;
}

export interface WebhookTable {
  webhook_id: string;
  tenant_id: string;
  created_by: string;
  name: string;
  url: string;
  /** Sealed with the service SecretBox; null when no secret is set (requests are then unsigned). */
  secret: string | null;
  /** JSON array of subscribed event names. */
  events: string;
  is_active: number;
  /** JSON object of extra request headers. */
  custom_headers: string;
  /** Consecutive failed deliveries; reset by a success; 10 disables the webhook. */
  failure_count: number;
  last_fired_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookLogTable {
  log_id: string;
  tenant_id: string;
  webhook_id: string;
  webhook_name: string;
  event_id: string;
  event: string;
  url: string;
  /** success | failed */
  status: string;
  status_code: number | null;
  /** The exact JSON body sent. */
  request_payload: string;
  /** First 10 KB of the receiver's answer. */
  response_body: string | null;
  error_message: string | null;
  attempt_number: number;
  /** Milliseconds. */
  response_time: number;
  created_at: string;
}

/** One platform call made while publishing a target (reference §4.10); kept 7 days. */
export interface PublishLogTable {
  log_id: string;
  tenant_id: string;
  post_id: string;
  target_id: string;
  profile_id: string;
  account_id: string;
  account_username: string | null;
  platform: string;
  /** publish | retry | media_upload | rate_limit_pause | token_refresh | cancelled */
  action: string;
  /** success | failed | pending | skipped */
  status: string;
  status_code: number | null;
  endpoint: string | null;
  /** First 200 characters of the text sent (the `search` filter looks here). */
  content_preview: string | null;
  /** JSON {contentPreview, mediaCount, mediaTypes, mediaUrls, scheduledFor, rawBody}. */
  request: string;
  /** JSON {platformPostId, platformPostUrl, errorMessage, errorCode, rawBody}. */
  response: string;
  duration_ms: number;
  attempt_number: number;
  metadata: string;
  created_at: string;
}

/** A posting queue: named weekly slots of a profile in an IANA zone (issue 7). */
export interface QueueTable {
  queue_id: string;
  tenant_id: string;
  profile_id: string;
  name: string;
  timezone: string;
  /** JSON array of {dayOfWeek 0-6 (0 = Sunday), time "HH:mm"}. */
  slots: string;
  active: number;
  is_default: number;
  created_at: string;
  updated_at: string;
}

/** A slot taken by a queued post; primary key (queue_id, slot_at) keeps two posts out of one slot. */
interface QueueSlotClaimTable {
  queue_id: string;
  slot_at: string;
  claim_id: string;
  tenant_id: string;
  created_at: string;
}

/** A team invitation; only the token's SHA-256 is stored. */
export interface InviteTable {
  invite_id: string;
  tenant_id: string;
  created_by: string;
  token_hash: string;
  scope: 'all' | 'profiles';
  /** JSON array of profile ids (scope profiles). */
  profile_ids: string;
  expires_at: string;
  used_at: string | null;
  used_by: string | null;
  created_at: string;
}

export interface MediaTable {
  media_id: string;
  tenant_id: string;
  /** Storage key `<token>/<name>.<ext>`; also the tail of the public URL. */
  key: string;
  storage: 'local' | 's3';
  filename: string;
  content_type: string;
  /** image | video | document */
  type: string;
  declared_size: number | null;
  max_size: number;
  size: number | null;
  /** pending (URL handed out) | uploaded */
  status: string;
  /** JSON MediaProbe (format, width, height, durationSec, codecs, skipped) once uploaded. */
  probe: string | null;
  /** JSON object: platform -> {key, size, contentType, width, height} of compressed copies. */
  derivatives: string;
  referenced: number;
  upload_expires_at: string;
  uploaded_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface IdempotencyKeyTable {
  tenant_id: string;
  /** The client's Idempotency-Key header value (scoped per tenant). */
  idem_key: string;
  /** sha256 of method, path and body: the same key with another request is refused. */
  request_hash: string;
  /**
   * in_flight (held, nothing committed) | committed (the request's change committed, its answer not
   * stored yet) | done (answer stored)
   */
  state: string;
  status_code: number | null;
  response_body: string | null;
  /** While in flight: after this, the holder is presumed dead and another request may take the key over. */
  locked_until: string | null;
  created_at: string;
  expires_at: string;
}

/** A named set of a tenant's accounts (GET/POST/PUT/DELETE /v1/account-groups). */
export interface AccountGroupTable {
  account_group_id: string;
  tenant_id: string;
  /** Unique per tenant. */
  name: string;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** One account of a group; removed with the account or the group (foreign keys, cascade). */
interface AccountGroupMemberTable {
  account_group_id: string;
  account_id: string;
  position: number;
}

/** Inbox (migration 0140): conversations, their messages, posts with comments, comments, reviews, and each account's sync cursor. */
export interface InboxConversationTable {
  conversation_id: string;
  tenant_id: string;
  account_id: string;
  platform: string;
  platform_conversation_id: string;
  participant_id: string | null;
  participant_name: string | null;
  participant_username: string | null;
  participant_picture: string | null;
  url: string | null;
  status: string;
  unread_count: number;
  last_message: string | null;
  last_message_at: string;
  metadata: string;
  created_at: string;
  updated_at: string;
}

export interface InboxMessageTable {
  message_id: string;
  tenant_id: string;
  account_id: string;
  conversation_id: string;
  platform_message_id: string;
  direction: string;
  sender_id: string | null;
  sender_name: string | null;
  text: string | null;
  attachments: string;
  subject: string | null;
  metadata: string;
  sent_at: string;
  edited_at: string | null;
  created_at: string;
  /** When the platform reported the account's message delivered (0380); null until then. */
  delivered_at?: string | null;
  /** When the platform reported the account's message read (0380); null until then. */
  read_at?: string | null;
}

export interface InboxPostTable {
  inbox_post_id: string;
  tenant_id: string;
  account_id: string;
  platform: string;
  platform_post_id: string;
  content: string | null;
  picture: string | null;
  permalink: string | null;
  posted_at: string | null;
  comment_count: number;
  like_count: number;
  last_comment_at: string;
  metadata: string;
  created_at: string;
}

export interface InboxCommentTable {
  comment_id: string;
  tenant_id: string;
  account_id: string;
  inbox_post_id: string;
  platform_comment_id: string;
  parent_platform_id: string | null;
  direction: string;
  author_id: string | null;
  author_name: string | null;
  author_username: string | null;
  author_picture: string | null;
  text: string;
  url: string | null;
  like_count: number;
  is_hidden: number;
  is_liked: number;
  like_uri: string | null;
  deleted_at: string | null;
  metadata: string;
  commented_at: string;
  created_at: string;
}

export interface InboxReviewTable {
  review_id: string;
  tenant_id: string;
  account_id: string;
  platform: string;
  platform_review_id: string;
  reviewer_id: string | null;
  reviewer_name: string | null;
  reviewer_picture: string | null;
  rating: number | null;
  text: string | null;
  url: string | null;
  reply_id: string | null;
  reply_text: string | null;
  reply_at: string | null;
  metadata: string;
  reviewed_at: string;
  created_at: string;
}

export interface InboxMentionTable {
  mention_id: string;
  tenant_id: string;
  account_id: string;
  platform: string;
  platform_mention_id: string;
  media_id: string;
  comment_id: string | null;
  author_id: string | null;
  author_name: string | null;
  author_username: string | null;
  author_picture: string | null;
  text: string;
  url: string | null;
  metadata: string;
  published_at: string;
  created_at: string;
}

/** A link or ad click into an existing conversation (0400), kept once per `referral_key`. */
export interface InboxReferralTable {
  referral_id: string;
  tenant_id: string;
  account_id: string;
  conversation_id: string;
  referral_key: string;
  sender_id: string;
  /** Meta's referral object (its documented keys), as JSON text. */
  referral: string;
  referred_at: string;
  created_at: string;
}

export interface InboxSyncTable {
  account_id: string;
  cursor: string | null;
  last_synced_at: string | null;
  last_error: string | null;
  failures: number;
  updated_at: string;
}

/** Comment-to-DM automations and what each did with each comment (migration 0300). */
export interface CommentAutomationTable {
  automation_id: string;
  tenant_id: string;
  profile_id: string;
  account_id: string;
  platform: string;
  trigger: string;
  platform_post_id: string | null;
  post_id: string | null;
  post_title: string | null;
  name: string;
  settings: string;
  is_active: number;
  triggered: number;
  sent: number;
  failed: number;
  created_at: string;
  updated_at: string;
}

export interface CommentAutomationLogTable {
  log_id: string;
  automation_id: string;
  tenant_id: string;
  platform_comment_id: string;
  platform_post_id: string;
  commenter_id: string | null;
  commenter_name: string | null;
  comment_text: string;
  source: string;
  status: string;
  error: string | null;
  comment_reply_status: string | null;
  comment_reply_error: string | null;
  excluded_by: string | null;
  due_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The metric counters every snapshot carries (normalized names; a platform without one reports 0). */
export interface MetricCounters {
  impressions: number;
  reach: number;
  likes: number;
  comments: number;
  shares: number;
  saves: number;
  clicks: number;
  views: number;
}

/** One row per published target: its latest metrics and collection state (migration 0150). */
export interface TargetMetricsTable extends MetricCounters {
  target_id: string;
  tenant_id: string;
  post_id: string;
  account_id: string;
  profile_id: string;
  platform: string;
  published_at: string;
  next_collect_at: string | null;
  collected_at: string | null;
  engagement: number;
  reached_6h: number | null;
  reached_12h: number | null;
  reached_1d: number | null;
  reached_2d: number | null;
  reached_7d: number | null;
  reached_30d: number | null;
  /** 1: the target of an external post (migration 0220). */
  is_external?: number;
}

interface MetricSnapshotTable extends MetricCounters {
  target_id: string;
  collected_at: string;
  tenant_id: string;
}

/** Sums of target_metrics per tenant, profile, platform, source and quarter-hour slot (migration 0250, kept by triggers). */
interface MetricsRollupTable extends MetricCounters {
  tenant_id: string;
  slot: string;
  profile_id: string;
  platform: string;
  is_external: number;
  posts: number;
  read_posts: number;
  engaged_posts: number;
  engagement: number;
  read_engagement: number;
  base: number;
  decay_0: number;
  decay_1: number;
  decay_2: number;
  decay_3: number;
  decay_4: number;
  decay_5: number;
  decay_6: number;
}

interface AccountMetricSnapshotTable {
  account_id: string;
  collected_at: string;
  tenant_id: string;
  followers: number | null;
  subscribers: number | null;
}

/** Inbox analytics sums kept by triggers on inbox_message (migration 0310, store/inbox-analytics.ts). */
interface InboxVolumeDayTable {
  tenant_id: string;
  day: string;
  account_id: string;
  source: string;
  direction: string;
  messages: number;
  [hour: `h${string}`]: number;
}

interface InboxConversationDayTable {
  tenant_id: string;
  day: string;
  conversation_id: string;
  source: string;
  account_id: string;
  received: number;
  sent: number;
  first_at: string;
  last_at: string;
  /** The conversation's previous day with a message (of this source), '' when none; null until linked. */
  prev_day: string | null;
  /** Its next day with a message, null when none. */
  next_day: string | null;
}

/** Conversations active per day, by the day each was active before (migration 0345). */
interface InboxActiveDayTable {
  tenant_id: string;
  day: string;
  account_id: string;
  source: string;
  prev_day: string;
  conversations: number;
}

/** Per conversation and source (and `all`), its messages of all time (migration 0370). */
interface InboxConversationTotalTable {
  tenant_id: string;
  conversation_id: string;
  source: string;
  account_id: string;
  received: number;
  sent: number;
  total: number;
  /** Bounds of the days of its messages: they widen as messages come, and stay when one goes. */
  first_day: string;
  last_day: string;
}

interface InboxReplyTable {
  message_id: string;
  tenant_id: string;
  account_id: string;
  conversation_id: string;
  day: string;
  replied_at: string;
  received_at: string;
  seconds: number;
  bucket: number;
}

interface InboxReplyDayTable {
  tenant_id: string;
  day: string;
  account_id: string;
  bucket: number;
  replies: number;
  seconds_sum: number;
  min_seconds: number;
  max_seconds: number;
}

/** The analytics change feed (migration 0311, store/analytics-delta.ts). */
interface AnalyticsChangeTable extends MetricCounters {
  seq: Generated<number>;
  xid: number;
  tenant_id: string;
  target_id: string;
  collected_at: string;
}

/** A running worker process (store/workers.ts). */
interface WorkerHeartbeatTable {
  worker_id: string;
  seen_at: string;
}

export interface Database {
  user: UserTable;
  api_key: ApiKeyTable;
  profile: ProfileTable;
  account: AccountTable & AccountMetricsColumns;
  meta: MetaTable;
  directory_version: DirectoryVersionTable;
  job: JobTable;
  event: EventTable;
  post: PostTable;
  post_target: PostTargetTable;
  publish_log: PublishLogTable;
  connect_token: ConnectTokenTable;
  connection_log: ConnectionLogTable;
  webhook: WebhookTable;
  webhook_log: WebhookLogTable;
  queue: QueueTable;
  queue_slot_claim: QueueSlotClaimTable;
  invite: InviteTable;
  media: MediaTable;
  idempotency_key: IdempotencyKeyTable;
  account_group: AccountGroupTable;
  account_group_member: AccountGroupMemberTable;
  post_recycling: PostRecyclingTable;
  post_recycled_copy: PostRecycledCopyTable;
  inbox_conversation: InboxConversationTable;
  inbox_message: InboxMessageTable;
  inbox_post: InboxPostTable;
  inbox_comment: InboxCommentTable;
  inbox_review: InboxReviewTable;
  inbox_mention: InboxMentionTable;
  inbox_referral: InboxReferralTable;
  inbox_sync: InboxSyncTable;
  comment_automation: CommentAutomationTable;
  comment_automation_log: CommentAutomationLogTable;
  target_metrics: TargetMetricsTable;
  metric_snapshot: MetricSnapshotTable;
  account_metric_snapshot: AccountMetricSnapshotTable;
  metrics_rollup: MetricsRollupTable;
  worker_heartbeat: WorkerHeartbeatTable;
  user_password: UserPasswordTable;
  session: SessionTable;
  inbox_volume_day: InboxVolumeDayTable;
  inbox_conversation_day: InboxConversationDayTable;
  inbox_active_day: InboxActiveDayTable;
  inbox_conversation_total: InboxConversationTotalTable;
  inbox_reply: InboxReplyTable;
  inbox_reply_day: InboxReplyDayTable;
  analytics_change: AnalyticsChangeTable;
}
