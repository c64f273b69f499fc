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

export interface MetaTable {
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
  /** JSON object of create-only options kept for display (tiktokSettings, recycling, crosspostingEnabled). */
  options: string;
  queued_from_profile: string | null;
  queue_id: string | null;
  created_at: string;
  updated_at: string;
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
  created_at: string;
  updated_at: string;
}

export interface Database {
  user: UserTable;
  api_key: ApiKeyTable;
  profile: ProfileTable;
  account: AccountTable;
  meta: MetaTable;
  job: JobTable;
  event: EventTable;
  post: PostTable;
  post_target: PostTargetTable;
}
