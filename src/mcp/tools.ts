/*
 * The MCP tools: each one is a route of the API (method and path), so a tool call passes through the
 * same authentication, rate limit, plan limits, validation, idempotency and tenant scoping as the HTTP
 * request it stands for. A tool adds only what an assistant needs around it: a name, a description that
 * says what the call costs and what it cannot undo, and for calls that make something public or delete
 * it, a confirmation step (`confirm: true`; without it the call is a dry run that changes nothing).
 */

export type Args = Record<string, unknown>;

/** A request to the API on behalf of the caller, as the routes answer it. */
interface ApiRequest {
  method: string;
  url: string;
  body?: unknown;
  headers?: Record<string, string>;
}
export interface ApiAnswer {
  status: number;
  body: unknown;
}
export type Dispatch = (request: ApiRequest) => Promise<ApiAnswer>;

export interface ToolDef {
  name: string;
  title: string;
  method: string;
  path: string;
  description: string;
  /** Read tools are offered to every key; write tools only to read-write keys. */
  access: 'read' | 'write';
  /** The call publishes, sends or deletes: it runs only with `confirm: true` (for these arguments). */
  needsConfirm?: (args: Args) => boolean;
  /** What a dry run shows besides the request it would make (a validation, the post it would touch). */
  preview?: (args: Args, dispatch: Dispatch) => Promise<unknown>;
  /** Arguments of the route a tool does not offer. */
  omit?: string[];
  /** Arguments the route leaves optional that this tool requires. */
  require?: string[];
  /** Arguments the tool sets itself. */
  fixed?: Args;
  /** Takes an Idempotency-Key, as the route does: two calls with the same key create one thing. */
  idempotent?: boolean;
}

const always = () => true;
const postOf = (args: Args, dispatch: Dispatch) =>
  typeof args.postId === 'string'
    ? dispatch({ method: 'GET', url: `/v1/posts/${encodeURIComponent(args.postId)}` })
    : Promise.resolve(null);
/** The validation POST /v1/posts would run (no accounts needed, nothing stored). */
const validation = (args: Args, dispatch: Dispatch) => {
  const { postId: _postId, confirm: _confirm, idempotencyKey: _key, ...body } = args;
  return dispatch({ method: 'POST', url: '/v1/tools/validate/post', body });
};

const PUBLIC =
  'Whatever is published is public at once on the platform and cannot be taken back by Herald except by unpublishing, where the platform allows it.';
const DRY_RUN = 'Without confirm: true this is a dry run that changes nothing and shows what would happen.';

/**
 * The fields of `PUT /v1/posts/{postId}` other than the time: the tools that only schedule or publish a
 * post hide them, so an assistant cannot change the post's content through them.
 */
const NOT_THE_TIME = [
  'title',
  'content',
  'mediaItems',
  'platforms',
  'publishNow',
  'isDraft',
  'tags',
  'hashtags',
  'mentions',
  'visibility',
  'metadata',
  'crosspostingEnabled',
  'tiktokSettings',
  'recycling',
  'queuedFromProfile',
  'queueId',
];

export const TOOLS: readonly ToolDef[] = [
  // Reading: free of side effects; each call counts against the key's per-minute rate limit.
  {
    name: 'list_profiles',
    title: 'List profiles',
    method: 'GET',
    path: '/v1/profiles',
    access: 'read',
    description: 'List the profiles (brands) this key can see. Read only.',
  },
  {
    name: 'list_accounts',
    title: 'List accounts',
    method: 'GET',
    path: '/v1/accounts',
    access: 'read',
    description: 'List the connected social accounts (platform, username, profile) this key can see. Read only.',
  },
  {
    name: 'list_posts',
    title: 'List posts',
    method: 'GET',
    path: '/v1/posts',
    access: 'read',
    description:
      'List posts with filters (status, platform, profile, dates), paged. status=unknown lists posts whose outcome must be settled. Read only.',
  },
  {
    name: 'get_post',
    title: 'Get a post',
    method: 'GET',
    path: '/v1/posts/{postId}',
    access: 'read',
    description: 'A post with its targets: per platform status, URL, error. Read only.',
  },
  {
    name: 'list_queue',
    title: 'List queues',
    method: 'GET',
    path: '/v1/queue/slots',
    access: 'read',
    description: "A profile's posting queue(s) and their next slots. Read only.",
  },
  {
    name: 'get_next_queue_slot',
    title: 'Next free queue slot',
    method: 'GET',
    path: '/v1/queue/next-slot',
    access: 'read',
    description: "The next free slot of a profile's queue. Read only; queue_post takes it.",
  },
  {
    name: 'list_conversations',
    title: 'List inbox conversations',
    method: 'GET',
    path: '/v1/inbox/conversations',
    access: 'read',
    description: 'Direct-message conversations across accounts, newest first (needs the inbox add-on). Read only.',
  },
  {
    name: 'list_conversation_messages',
    title: 'List messages',
    method: 'GET',
    path: '/v1/inbox/conversations/{conversationId}/messages',
    access: 'read',
    description: "A conversation's messages, oldest first. Read only.",
  },
  {
    name: 'list_commented_posts',
    title: 'List commented posts',
    method: 'GET',
    path: '/v1/inbox/comments',
    access: 'read',
    description: "The accounts' posts that have comments, most recently commented first. Read only.",
  },
  {
    name: 'list_post_comments',
    title: "List a post's comments",
    method: 'GET',
    path: '/v1/inbox/comments/{postId}',
    access: 'read',
    description:
      "A platform post's comments with their replies (postId is the inbox's post id; accountId is required). Read only.",
  },
  {
    name: 'list_reviews',
    title: 'List reviews',
    method: 'GET',
    path: '/v1/inbox/reviews',
    access: 'read',
    description: 'Reviews of the connected locations and pages across accounts, with a summary. Read only.',
  },
  {
    name: 'get_post_analytics',
    title: 'Post analytics',
    method: 'GET',
    path: '/v1/analytics',
    access: 'read',
    description:
      'Metrics of one post (postId) or a page of published posts with an overview (needs the analytics add-on). Read only.',
  },
  {
    name: 'get_account_analytics',
    title: 'Account analytics',
    method: 'GET',
    path: '/v1/accounts/follower-stats',
    access: 'read',
    description: 'Follower history and growth of the connected accounts (needs the analytics add-on). Read only.',
  },
  {
    name: 'get_daily_metrics',
    title: 'Daily metrics',
    method: 'GET',
    path: '/v1/analytics/daily-metrics',
    access: 'read',
    description: 'Daily aggregated metrics with a per-platform breakdown (needs the analytics add-on). Read only.',
  },
  {
    name: 'get_best_time',
    title: 'Best time to post',
    method: 'GET',
    path: '/v1/analytics/best-time',
    access: 'read',
    description:
      'Weekday and hour slots ranked by the average engagement of past posts (needs the analytics add-on). Read only.',
  },
  {
    name: 'list_publishing_logs',
    title: 'Publishing logs',
    method: 'GET',
    path: '/v1/posts/logs',
    access: 'read',
    description: 'Every platform call Herald made while publishing (kept 7 days), newest first. Read only.',
  },
  {
    name: 'list_post_logs',
    title: "A post's logs",
    method: 'GET',
    path: '/v1/posts/{postId}/logs',
    access: 'read',
    description: "One post's publishing log entries, newest first. Read only.",
  },

  // Writing. Validation first: it stores nothing.
  {
    name: 'validate_post',
    title: 'Validate a post',
    method: 'POST',
    path: '/v1/tools/validate/post',
    access: 'write',
    description:
      'Check a post against every platform rule POST /v1/posts applies (lengths, media, options) without storing or publishing anything. Free; use it before create_post.',
  },
  {
    name: 'create_post',
    title: 'Create or schedule a post',
    method: 'POST',
    path: '/v1/posts',
    access: 'write',
    idempotent: true,
    needsConfirm: (a) => a.isDraft !== true,
    preview: validation,
    description: `Create a post for one or more accounts: a draft (isDraft), published now (publishNow) or scheduled (scheduledFor, optionally local time in timezone). Counts against the plan's monthly posts. ${PUBLIC} ${DRY_RUN} (A draft needs no confirm.)`,
  },
  {
    name: 'queue_post',
    title: 'Queue a post in the next free slot',
    method: 'POST',
    path: '/v1/posts',
    access: 'write',
    idempotent: true,
    require: ['queuedFromProfile'],
    omit: ['scheduledFor', 'publishNow', 'isDraft'],
    needsConfirm: always,
    preview: validation,
    description: `Create a post in the next free slot of a profile's queue (queuedFromProfile; queueId for another queue than the default). Counts against the plan's monthly posts. ${PUBLIC} ${DRY_RUN}`,
  },
  {
    name: 'update_post',
    title: 'Update a post',
    method: 'PUT',
    path: '/v1/posts/{postId}',
    access: 'write',
    needsConfirm: (a) => a.publishNow === true,
    preview: async (a, d) => ({ post: (await postOf(a, d))?.body, validation: (await validation(a, d)).body }),
    description: `Change a draft, scheduled or failed post: text, media, accounts, options or time. Only the fields given change. With publishNow it publishes at once: ${PUBLIC} ${DRY_RUN} (Needed only with publishNow.)`,
  },
  {
    name: 'schedule_post',
    title: 'Schedule a post',
    method: 'PUT',
    path: '/v1/posts/{postId}',
    access: 'write',
    require: ['scheduledFor'],
    omit: NOT_THE_TIME,
    needsConfirm: always,
    preview: postOf,
    description: `Set when a draft or scheduled post is published (scheduledFor; local time in timezone). At that time it is published: ${PUBLIC} ${DRY_RUN}`,
  },
  {
    name: 'publish_post_now',
    title: 'Publish a post now',
    method: 'PUT',
    path: '/v1/posts/{postId}',
    access: 'write',
    omit: [...NOT_THE_TIME, 'scheduledFor', 'timezone'],
    fixed: { publishNow: true },
    needsConfirm: always,
    preview: postOf,
    description: `Publish a draft or scheduled post at once on all its accounts. ${PUBLIC} ${DRY_RUN}`,
  },
  {
    name: 'delete_post',
    title: 'Delete a post',
    method: 'DELETE',
    path: '/v1/posts/{postId}',
    access: 'write',
    needsConfirm: always,
    preview: postOf,
    description: `Delete a post that is not published, with its pending publishing. Cannot be undone. ${DRY_RUN}`,
  },
  {
    name: 'retry_post',
    title: 'Retry a failed post',
    method: 'POST',
    path: '/v1/posts/{postId}/retry',
    access: 'write',
    needsConfirm: always,
    preview: postOf,
    description: `Publish the failed targets of a failed or partial post again. ${PUBLIC} ${DRY_RUN}`,
  },
  {
    name: 'unpublish_post',
    title: 'Unpublish a post',
    method: 'POST',
    path: '/v1/posts/{postId}/unpublish',
    access: 'write',
    needsConfirm: always,
    preview: postOf,
    description: `Delete a published post from one platform (where the platform allows it). Its likes and comments are lost with it. ${DRY_RUN}`,
  },
  {
    name: 'settle_unknown_outcome',
    title: 'Settle an unknown outcome',
    method: 'POST',
    path: '/v1/posts/{postId}/targets/{target}/resolve',
    access: 'write',
    description:
      'Settle a target whose outcome is unknown (the platform may or may not have published it) with what you saw on the platform: published with its URL, or failed. Nothing is sent to the platform.',
  },
  {
    name: 'upload_media_from_url',
    title: 'Upload media from a URL',
    method: 'POST',
    path: '/v1/media/presign',
    access: 'write',
    description:
      "Fetch an image, video or PDF from a public URL into Herald's media storage and return its publicUrl for mediaItems. The URL is fetched through Herald's outbound guard (public addresses only). Uses storage; nothing is published.",
  },
  {
    name: 'send_inbox_message',
    title: 'Send a direct message',
    method: 'POST',
    path: '/v1/inbox/conversations/{conversationId}/messages',
    access: 'write',
    needsConfirm: always,
    description: `Send a direct message in a conversation. It is delivered to the other person at once and cannot be recalled by Herald. ${DRY_RUN}`,
  },
  {
    name: 'reply_to_comment',
    title: 'Reply to a comment',
    method: 'POST',
    path: '/v1/inbox/comments/{postId}',
    access: 'write',
    needsConfirm: always,
    description: `Comment on a post, or reply to one of its comments (commentId). ${PUBLIC} ${DRY_RUN}`,
  },
  {
    name: 'reply_to_review',
    title: 'Reply to a review',
    method: 'POST',
    path: '/v1/inbox/reviews/{reviewId}/reply',
    access: 'write',
    needsConfirm: always,
    description: `Reply publicly to a review. ${PUBLIC} ${DRY_RUN}`,
  },
];
