/**
 * The catalogue of every error code Herald answers in `{error, code, details}`. `AppError` takes only a
 * code listed here (the type checker refuses any other), `docs/errors.md` is generated from it
 * (`npm run docs:errors`), and the OpenAPI document lists the codes on its error schema.
 *
 * `statuses` are the HTTP statuses the code answers with (for an `AppError`, the status
 * `http/errors.ts` gives its kind).
 * `summary` says what the code means; `…` marks the parts of the message that name the request's values.
 * Codes are snake_case except `PLATFORM_LIMITATION` and `TOKEN_EXPIRED`, which the hosted API spells so.
 */
export interface ErrorCodeEntry {
  statuses: readonly (number | '4xx' | 'cli')[];
  summary: string;
}

export const ERROR_CODES = {
  current_credential: {
    statuses: [400],
    summary: 'The connected app is the API key making the request, which cannot revoke itself',
  },
  connected_app_not_found: { statuses: [404], summary: 'The connected app (an API key of the caller) was not found' },
  file_empty: { statuses: [400], summary: 'The uploaded file is empty' },
  invalid_content: { statuses: [400], summary: 'The new text of the post is empty' },
  ads_connection_required: {
    statuses: [409],
    summary: "The account is not connected; reconnect it, then sync again (the hosted API's code)",
  },
  account_platform_mismatch: { statuses: [400], summary: 'The account is not of the platform the route or body names' },
  webhook_event_not_found: { statuses: [404], summary: 'No delivery of this event to this webhook is logged' },
  delivery_expired: {
    statuses: [422],
    summary: 'The delivery is older than the log retention, so its payload is gone',
  },
  webhook_inactive: { statuses: [400], summary: 'The webhook is disabled; enable it before redelivering' },
  PLATFORM_LIMITATION: {
    statuses: [400],
    summary: "The platform's API does not offer this operation (the hosted API's code, kept as it spells it)",
  },
  TOKEN_EXPIRED: {
    statuses: [401],
    summary: "The … account's authorization expired and could not be refreshed; reconnect the account",
  },
  account_exists_in_profile: { statuses: [409], summary: 'The target profile already has this account connected' },
  account_group_name_taken: { statuses: [409], summary: 'An account group named "…" already exists' },
  account_group_not_found: { statuses: [404], summary: 'Account group not found' },
  account_inactive: { statuses: [400], summary: 'The account is disconnected or inactive' },
  account_not_connected: { statuses: [400], summary: 'The account has no access token; reconnect it' },
  account_not_found: { statuses: [400, 404], summary: 'Unknown account ids: …' },
  account_reauthorization_required: {
    statuses: [400],
    summary: "The platform refused the account's authorization, or the account has no token; reconnect the account",
  },
  addon_requires_paid_plan: { statuses: [400], summary: 'Add-ons are available on paid plans only' },
  ambiguous_target: {
    statuses: [400],
    summary: 'The post has … … targets whose outcome is unknown: name one by its accountId',
  },
  analytics_addon_required: { statuses: [402], summary: 'Analytics add-on required' },
  api_key_limit_reached: { statuses: [403], summary: 'At most … active API keys per user' },
  api_key_not_found: { statuses: [404], summary: 'API key not found' },
  attachment_empty: { statuses: [400], summary: 'The attachment is empty' },
  attachment_not_found: { statuses: [404], summary: 'The message has no attachment at that position' },
  authorization_denied: { statuses: [400], summary: 'The user or the platform denied the OAuth authorization' },
  automation_exists: { statuses: [409], summary: 'An active comment-to-DM automation already exists for this post' },
  automation_not_found: { statuses: [404], summary: 'Automation not found' },
  bad_request: { statuses: ['4xx'], summary: 'A 4xx of the HTTP layer that has no code of its own' },
  bad_url: { statuses: [400], summary: 'The URL path is not valid (malformed percent-encoding)' },
  board_not_found: { statuses: [404], summary: "The board is not one of the connected account's boards" },
  caption_not_found: { statuses: [404], summary: "The caption track is not one of the video's" },
  channel_mismatch: {
    statuses: [403],
    summary: 'channelId is not a channel of the server this account is connected to',
  },
  channel_not_found: { statuses: [404], summary: 'The channel is not one the connected app can post to' },
  chat_connected_elsewhere: {
    statuses: [409],
    summary: 'This chat is already connected to another account of this server; its owner must disconnect it first',
  },
  chat_control_unproven: {
    statuses: [403],
    summary:
      'Prove that you control this chat: get an access code with GET /v1/connect/…?profileId=..., send it in the chat, then call this again',
  },
  code_not_found: { statuses: [404], summary: 'Access code not found' },
  connect_incomplete: { statuses: [500], summary: 'The … connection did not complete' },
  content_type_mismatch: { statuses: [400], summary: 'Content-Type must be … (got …)' },
  content_type_not_allowed: { statuses: [400], summary: 'Content type not allowed: …' },
  conversation_not_found: { statuses: [404], summary: 'Conversation not found' },
  csrf_token_invalid: {
    statuses: [403],
    summary: 'A request signed in by session cookie that changes something did not send its X-CSRF-Token',
  },
  csv_duplicate_column: { statuses: [400], summary: 'Column named twice: …' },
  csv_empty: { statuses: [400], summary: 'The file is empty: its first line must name the columns' },
  csv_missing_column: { statuses: [400], summary: 'The file needs the columns platforms and profiles, or accounts' },
  csv_not_utf8: { statuses: [400], summary: 'The file is UTF-16: save it as CSV in UTF-8' },
  csv_row_width: {
    statuses: [400],
    summary: 'The row has … cells; the header has … columns (an unquoted separator or line break?)',
  },
  csv_unknown_column: { statuses: [400], summary: 'Unknown column…: …' },
  dashboard_not_built: { statuses: [404], summary: 'The dashboard is not built: run npm run build' },
  database_not_found: {
    statuses: [404],
    summary:
      "no Herald database at …. Run this with the server's DATA_DIR (or DATABASE_URL), or add --init to create a new database there",
  },
  destination_not_found: { statuses: [404], summary: 'The destination is not one the connect flow offered' },
  destinations_not_declared: {
    statuses: [500],
    summary: 'The platform declares no account or connect selection (a bug)',
  },
  duplicate_content: {
    statuses: [409],
    summary: 'The same text was published or scheduled on the account within the last 24 hours',
  },
  duplicate_target: { statuses: [400], summary: 'The same account is named twice in platforms' },
  email_taken: { statuses: [409], summary: 'A user with email … exists' },
  everyone_role: { statuses: [400], summary: 'The @everyone role cannot be assigned or removed' },
  expectation_failed: { statuses: [417], summary: 'The Expect header asks for something other than 100-continue' },
  file_required: { statuses: [400], summary: 'Send the CSV as multipart/form-data in the field file' },
  file_too_large: { statuses: [400, 413], summary: 'The attachment is larger than … bytes' },
  forbidden_field_name: { statuses: [400], summary: 'A form field is named __proto__ or constructor' },
  forbidden_json_key: {
    statuses: [400],
    summary: 'A JSON body or cell has the key __proto__ or constructor.prototype, which is refused',
  },
  full_scope_key_required: {
    statuses: [403],
    summary: 'This endpoint manages the whole account: use an API key with scope "full"',
  },
  guild_mismatch: { statuses: [403], summary: 'guildId is not the server this account is connected to' },
  headers_too_large: { statuses: [431], summary: 'The request headers are too large' },
  idempotency_key_answer_lost: {
    statuses: [409],
    summary:
      'The request with this Idempotency-Key was carried out but its response was lost: look the result up instead of resending',
  },
  idempotency_key_in_use: { statuses: [409], summary: 'A request with this Idempotency-Key is still being processed' },
  idempotency_key_mismatch: { statuses: [422], summary: 'This Idempotency-Key was used with a different request' },
  inbox_addon_required: { statuses: [403], summary: 'Inbox addon required' },
  internal_error: { statuses: [500], summary: 'Internal server error: a bug, logged with the request id' },
  invalid_addon: { statuses: [400], summary: 'Unknown add-on(s): … (analytics, inbox)' },
  invalid_aggregation: { statuses: [400], summary: 'Invalid aggregation type. Must be one of: TOTAL, DAILY' },
  invalid_app_password: { statuses: [400], summary: 'The platform refused the app password or credentials' },
  invalid_authorization_code: { statuses: [400], summary: 'The platform refused the OAuth authorization code' },
  invalid_connect_token: { statuses: [401], summary: 'X-Connect-Token is invalid or expired' },
  invalid_breakdown: {
    statuses: [400],
    summary: 'breakdown is not one the insights read takes, or not with this metricType',
  },
  invalid_configuration: {
    statuses: ['cli'],
    summary: 'The command line tool found a setting it cannot use (its JSON output, exit code 1)',
  },
  invalid_content_length: {
    statuses: [400],
    summary: 'The Content-Length header is not valid, or does not match the body',
  },
  invalid_credentials: {
    statuses: [401],
    summary: 'Wrong email or password (also an unknown email, or a user without a password)',
  },
  invalid_csv: { statuses: [400], summary: 'The file is not valid CSV (line …): …' },
  invalid_custom_header: { statuses: [400], summary: 'Invalid custom header: … …' },
  invalid_date: { statuses: [400], summary: 'A date or date-time parameter is not a valid ISO 8601 value' },
  invalid_date_format: { statuses: [400], summary: 'A date parameter is not a date as YYYY-MM-DD' },
  invalid_date_range: { statuses: [400], summary: 'startDate must be on or before endDate' },
  invalid_email: { statuses: [400], summary: 'Not an email address: "…"' },
  invalid_flag: { statuses: [400], summary: 'A CSV flag cell is not true or false' },
  invalid_idempotency_key: { statuses: [400], summary: 'Idempotency-Key must be 1 to 255 characters' },
  invalid_json: { statuses: [400], summary: 'The body, or a JSON cell, is not valid JSON' },
  invalid_metric_type: {
    statuses: [400],
    summary: 'metricType does not go with the metrics asked (a time series of a metric that has none)',
  },
  invalid_metrics: { statuses: [400], summary: 'Invalid metrics: …. Valid options: …' },
  invalid_multipart: { statuses: [400], summary: 'The multipart body cannot be read: …' },
  invalid_pending_data_token: { statuses: [400], summary: 'pendingDataToken is invalid or expired' },
  invalid_post_id: { statuses: [400], summary: 'postId is not a post of the account (its Page)' },
  invalid_plan: { statuses: [400], summary: 'Unknown plan "…" (free, build, accelerate, unlimited)' },
  invalid_platform: { statuses: [400], summary: 'Unknown platform "…"' },
  invalid_signature: { statuses: [403], summary: 'Upload URL signature is missing or malformed' },
  invalid_state: {
    statuses: [400],
    summary: 'state must be "{userId}-{profileId}" with your user id (GET /v1/users) and a profile id',
  },
  invalid_temp_token: { statuses: [400], summary: 'tempToken is invalid or expired' },
  invalid_timezone: { statuses: [400], summary: 'Unknown time zone: …' },
  invalid_transfer_encoding: { statuses: [400], summary: 'The Transfer-Encoding header is not valid' },
  invalid_urn: { statuses: [400], summary: 'Invalid URN format. Must be urn:li:share:ID or urn:li:ugcPost:ID' },
  invalid_webhook_url: { statuses: [400], summary: 'The webhook URL is not an https URL of a public address' },
  invite_expired: { statuses: [400], summary: 'This invite has expired' },
  invite_not_found: { statuses: [404], summary: 'Invite not found' },
  invite_scope_forbidden: {
    statuses: [403],
    summary: 'A caller limited to some profiles cannot invite to all profiles',
  },
  invite_used: { statuses: [409], summary: 'This invite has already been used' },
  json_too_deep: { statuses: [400], summary: 'A JSON body or cell nests objects and arrays too deeply' },
  location_not_available: { statuses: [400], summary: 'The location cannot be connected (not verified or no access)' },
  location_not_found: { statuses: [404], summary: "The location is not one of the connected account's locations" },
  log_not_found: { statuses: [404], summary: 'Log not found' },
  malformed_request: { statuses: [400], summary: 'The HTTP request is malformed' },
  media_in_use: { statuses: [409], summary: 'A post uses this upload: delete or edit the post first' },
  media_not_found: { statuses: [404], summary: 'No upload of this team has this id' },
  message_not_editable: { statuses: [400], summary: 'Only messages the account sent can be edited' },
  message_not_found: { statuses: [404], summary: 'Message not found' },
  method_not_allowed: { statuses: [405], summary: 'The route does not take this method' },
  missing_urn: { statuses: [400], summary: 'Missing required parameter: urn' },
  no_account_for_platform: { statuses: [400], summary: 'Profile … has no active … account' },
  no_destinations: { statuses: [400], summary: 'This … user has no …s to post to' },
  no_pending_connection: {
    statuses: [400],
    summary:
      'No pending connection of this profile names that id: authorize the app for it first (GET /v1/connect/{platform})',
  },
  not_a_session: {
    statuses: [400],
    summary: 'The route needs a password session (cookie) and was called with an API key',
  },
  not_an_owner: { statuses: [400], summary: "Plans belong to the tenant owner; set the owner's plan" },
  not_announcement_channel: { statuses: [400], summary: 'Only messages of an announcement channel can be crossposted' },
  not_found: { statuses: [404], summary: 'Media not found' },
  not_on_platform: { statuses: [400], summary: 'The post has no … target' },
  not_published: { statuses: [400], summary: 'The post is not published on …' },
  nothing_to_publish: {
    statuses: [409],
    summary: 'The post has no target left to publish: every target is published or cancelled',
  },
  oauth_not_supported: {
    statuses: [400],
    summary: 'The platform does not connect through OAuth; use its own connect endpoint',
  },
  organization_account_required: {
    statuses: [400],
    summary: 'Organization analytics need a page account; a personal account has its own aggregate analytics',
  },
  organization_not_found: { statuses: [404], summary: 'The organization is not one the connected member administers' },
  organization_not_supported: {
    statuses: [400],
    summary:
      'Aggregate analytics are for personal accounts only; an organization account has per-post analytics via /v1/analytics',
  },
  outside_messaging_window: {
    statuses: [400],
    summary:
      'The …-hour window to answer this conversation has closed: send it with messagingType MESSAGE_TAG and a messageTag (…)',
  },
  page_not_available: { statuses: [400], summary: 'The page cannot be connected (missing permission or task)' },
  page_not_found: { statuses: [404], summary: "The page is not one of the connected user's pages" },
  payload_too_large: { statuses: [413], summary: 'The request body is too large' },
  pending_data_not_found: { statuses: [404], summary: 'Pending connect data not found' },
  platform_error: { statuses: [502], summary: 'The platform answered with an error' },
  platform_mismatch: { statuses: [400], summary: 'Account … is a … account, not one of platforms (…)' },
  platform_not_configured: {
    statuses: [400],
    summary: "The platform's app credentials are not configured on this server",
  },
  platform_rate_limited: { statuses: [429], summary: 'The platform is throttling this account; try again later' },
  platform_rejected: { statuses: [400], summary: 'The platform refused the request; details say why' },
  platform_unavailable: { statuses: [502], summary: 'The platform could not be reached; try again' },
  platform_webhook_not_found: { statuses: [404], summary: 'Platform webhook not found' },
  platform_webhook_refused: {
    statuses: [400, 401, 403],
    summary: "A platform's webhook push was refused (bad signature, verification token or body)",
  },
  post_limit_reached: { statuses: [403], summary: 'Your plan allows … posts per month' },
  post_modified: { statuses: [409], summary: 'The post changed while it was being updated; retry' },
  post_not_editable: { statuses: [400], summary: 'A … post cannot be edited' },
  post_not_failed: {
    statuses: [400],
    summary: 'Only failed or partially published posts can be retried; this one is …',
  },
  post_not_found: { statuses: [404], summary: 'Post not found' },
  post_outcome_unknown: {
    statuses: [409],
    summary: "The post's outcome on a platform is unknown: resolve it before this change",
  },
  post_partly_published: {
    statuses: [409],
    summary:
      'Part of this post is already public on … (a thread that stopped part way): retry the post to finish it, or unpublish it, instead of replacing its platforms',
  },
  post_published: { statuses: [400], summary: 'Published posts cannot be deleted; unpublish them instead' },
  post_publishing: {
    statuses: [409],
    summary: 'The post is being published right now; try again when it has finished',
  },
  privacy_level_option_mismatch: {
    statuses: [400],
    summary: "The privacy level is not one the creator's account offers",
  },
  profile_ambiguous: { statuses: [400], summary: 'Several profiles have this name: use the profile id' },
  profile_has_accounts: { statuses: [400], summary: 'Disconnect the accounts of this profile before deleting it' },
  profile_limit_reached: { statuses: [403], summary: 'Your plan allows … profiles' },
  profile_mismatch: { statuses: [400], summary: 'profileId does not match the one the connect flow started with' },
  profile_not_found: { statuses: [400, 404], summary: 'Profile not found' },
  profile_not_owned: { statuses: [403], summary: 'One or more profiles not found or not owned' },
  profile_out_of_scope: { statuses: [403], summary: "The target profile is outside this API key's profiles" },
  profiles_required: {
    statuses: [400],
    summary: 'platforms needs profiles (the profiles whose accounts to post to), or give accounts',
  },
  public_profile_not_found: { statuses: [404], summary: "The public profile is not one of the connected account's" },
  queue_inactive: { statuses: [400], summary: 'Queue "…" is not active' },
  queue_no_free_slot: { statuses: [400, 404], summary: 'Queue "…" has no free slot' },
  queue_not_found: { statuses: [400, 404], summary: 'queueId is not a queue of this profile' },
  queue_profile_ambiguous: {
    statuses: [400],
    summary: 'use_queue needs the row to post to the accounts of exactly one profile (its queue takes the post)',
  },
  range_not_satisfiable: { statuses: [416], summary: 'The Range header asks for bytes outside the file' },
  rate_limit_exceeded: { statuses: [429], summary: 'Rate limit of … requests per minute exceeded' },
  read_only_key: { statuses: [403], summary: 'A read-only key cannot create a read-write key' },
  recycling_limit_reached: { statuses: [403], summary: 'An account can have at most … posts with active recycling' },
  request_timeout: { statuses: [408], summary: 'The request took too long to arrive' },
  resource_not_found: { statuses: [404], summary: 'The MCP resource does not exist' },
  review_not_found: { statuses: [404], summary: 'Review not found' },
  route_not_found: { statuses: [404], summary: 'No route has this method and path' },
  schedule_time_missing: {
    statuses: [400],
    summary:
      'The row needs schedule_time (or schedule_time_<platform> for each of its platforms), publish_now, use_queue or is_draft',
  },
  scope_exceeds_caller: { statuses: [403], summary: 'A profile-scoped caller can only create profile-scoped keys' },
  scope_forbids_profile_creation: { statuses: [403], summary: 'A profile-scoped caller cannot create profiles' },
  scraping_not_supported: {
    statuses: [501],
    summary: "Self-hosted Herald does not scrape platforms, and the platform's API offers no such call",
  },
  size_mismatch: { statuses: [400], summary: 'Content-Length is … but … bytes were declared at presign' },
  storage_upload_failed: { statuses: [502], summary: "Herald's own storage refused an upload" },
  target_not_found: { statuses: [404], summary: 'Target not found' },
  target_not_unknown: {
    statuses: [409],
    summary: 'The … target is …: only a target whose outcome is unknown can be resolved',
  },
  token_revoked: { statuses: [502], summary: 'The platform revoked the grant during a token refresh' },
  too_many_files: { statuses: [400], summary: 'Send one file, in the field file' },
  too_many_lines: {
    statuses: [400],
    summary: 'The file has more than … lines; at most … rows are accepted in one upload',
  },
  too_many_login_attempts: {
    statuses: [429],
    summary: 'Too many sign-in attempts for this email or from this address in the last minute',
  },
  too_many_parts: {
    statuses: [400],
    summary: 'The form has too many parts: send the field file and optionally dryRun',
  },
  too_many_rows: { statuses: [400], summary: 'The file has more than … rows; at most … are accepted in one upload' },
  tool_not_found: { statuses: [404], summary: 'There is no … tool for "…"' },
  tool_without_account: { statuses: [500], summary: "connectDestination needs the tool's account" },
  unauthorized: { statuses: [401], summary: 'The API key, session or credentials are missing or invalid' },
  unexpected_file_field: { statuses: [400], summary: 'Send the CSV in the field file, not …' },
  unknown_platform: { statuses: [400, 500], summary: 'unknown platform …' },
  unpublish_not_supported: { statuses: [400], summary: 'This server cannot unpublish from …' },
  unreadable_media: { statuses: [400], summary: 'The attachment is not a readable …' },
  unsupported_attachment: {
    statuses: [400],
    summary: 'The attachment must be a JPEG, PNG, GIF or WebP image, an MP4 or MOV video, or a PDF',
  },
  unsupported_feature: {
    statuses: [400],
    summary: 'The automation uses features Herald does not offer (named in details.fields)',
  },
  unsupported_media_type: { statuses: [415], summary: 'The request body has a Content-Type the route does not take' },
  unsupported_parameter: {
    statuses: [400],
    summary: 'The route does not take this parameter (post earnings are lifetime totals: no date window)',
  },
  unsupported_platform: { statuses: [400], summary: 'Posts on … cannot be unpublished through the API' },
  upload_complete: {
    statuses: [409],
    summary: 'This upload is complete and its file is served as immutable; request a new upload URL for other bytes',
  },
  upload_url_expired: { statuses: [403], summary: 'Upload URL has expired; request a new one' },
  upstream_error: { statuses: [502], summary: 'The API answered an unexpected status to an MCP tool' },
  uri_too_long: { statuses: [414], summary: 'A path segment of the URL is too long' },
  user_not_found: { statuses: [404], summary: 'User not found' },
  validation_error: { statuses: [400], summary: 'name must not be empty' },
  webhook_limit_reached: { statuses: [400], summary: 'At most … webhooks per user' },
  video_not_found: { statuses: [404], summary: "The video is not one of the connected channel's videos" },
  webhook_not_found: { statuses: [404], summary: 'Webhook not found' },
  webhooks_require_full_access: {
    statuses: [403],
    summary: 'Webhooks receive events of every profile; use a key with access to all profiles',
  },
  wrong_password: { statuses: [403], summary: 'The current password given to change it is wrong' },
  analytics_scope_missing: {
    statuses: [412],
    summary: 'The insights need a permission the account did not grant: reconnect it',
  },
  youtube_analytics_scope_missing: {
    statuses: [412],
    summary: 'Daily video analytics need a permission the account did not grant: reconnect it',
  },
} as const satisfies Record<string, ErrorCodeEntry>;

/**
 * Codes that name the platform they are about, `{platform}` standing for its id (`not_telegram_account`).
 * The connect and account routes build them from the platform's descriptor.
 */
export const PLATFORM_ERROR_CODES = {
  'not_{platform}_account': {
    statuses: [400],
    summary: 'The route applies to accounts of one platform, and this account is of another',
  },
  '{platform}_already_connected': {
    statuses: [409],
    summary: 'The profile already has an account of this platform; switch its destination instead',
  },
  '{platform}_chat_unavailable': {
    statuses: [400],
    summary: "The platform's bot cannot see the chat (unknown chat, or the bot is not in it)",
  },
  '{platform}_bot_not_admin': {
    statuses: [400],
    summary: "Herald's bot must be an administrator of the chat with permission to post",
  },
  '{platform}_authentication_failed': { statuses: [400], summary: 'The platform refused the handle or app password' },
  '{platform}_login_rejected': { statuses: [400], summary: 'The platform refused the login' },
} as const satisfies Record<string, ErrorCodeEntry>;

type Templated<T extends string> = T extends `${infer Head}{platform}${infer Tail}` ? `${Head}${string}${Tail}` : never;

/** A code of the catalogue, or of the platform-named codes with a platform's id in place of `{platform}`. */
export type ErrorCode = keyof typeof ERROR_CODES | Templated<keyof typeof PLATFORM_ERROR_CODES>;
