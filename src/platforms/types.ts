/*
 * The contract between the publishing engine and the platform adapters. An adapter talks to one
 * platform over its real wire protocol; it never touches the database, the environment or retries.
 * It returns a result or throws a PlatformError of one kind; the job layer decides what each kind means.
 */

import type { AccountSetting } from './settings.js';
import type { OutboundFetch } from '../lib/outbound.js';
import type { Platform } from './catalogue.js';

export type { Platform };

/**
 * - `auth`: token expired or revoked (the engine refreshes once, then gives up and disconnects on a revoke).
 * - `rate_limited`: throttled; `retryAfterMs` when the platform said.
 * - `rejected`: the platform refused this content for good (validation, duplicate, policy). No retry.
 * - `unavailable`: transient (5xx, connection refused before sending). Retried with backoff.
 * - `ambiguous`: the request may have been accepted (timeout or connection lost after sending).
 *   Never re-sent blindly: the engine checks with `findPublished` or surfaces it.
 */
export type PlatformErrorKind = 'auth' | 'rate_limited' | 'rejected' | 'unavailable' | 'ambiguous';

export class PlatformError extends Error {
  readonly kind: PlatformErrorKind;
  /** HTTP status the platform answered, when there was an answer. */
  readonly status: number | null;
  readonly retryAfterMs: number | null;
  /** The platform's own error code (e.g. Graph API code, X error type). */
  readonly platformCode: string | null;
  /** The endpoint called, for the publishing log. */
  readonly endpoint: string | null;
  /** The platform's response body (truncated by the caller when stored). */
  readonly raw: string | null;
  /** For `auth`: true when the platform says the grant is gone for good (invalid_grant, revoked). */
  readonly revoked: boolean;

  constructor(
    kind: PlatformErrorKind,
    message: string,
    opts: {
      status?: number | null;
      retryAfterMs?: number | null;
      platformCode?: string | null;
      endpoint?: string | null;
      raw?: string | null;
      revoked?: boolean;
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = 'PlatformError';
    this.kind = kind;
    this.status = opts.status ?? null;
    this.retryAfterMs = opts.retryAfterMs ?? null;
    this.platformCode = opts.platformCode ?? null;
    this.endpoint = opts.endpoint ?? null;
    this.raw = opts.raw ?? null;
    this.revoked = opts.revoked ?? false;
  }
}

/**
 * `error` as a PlatformError. Anything else thrown by an adapter may have happened after the request was
 * sent, so it is `ambiguous`: it never leads to a blind re-send.
 */
export function toPlatformError(error: unknown): PlatformError {
  if (error instanceof PlatformError) return error;
  const text = error instanceof Error ? error.message : String(error);
  return new PlatformError(
    'ambiguous',
    `the adapter failed in a way that does not tell whether the post was made: ${text}`,
    { cause: error },
  );
}

/**
 * What the attempts of a thread target have posted so far: the root and the replies that went out, in
 * order. Recorded on the target as each post goes out (PlatformIO.threadProgress), so an attempt after
 * a thread stopped part way continues after the last reply instead of posting the root again.
 */
export interface ThreadProgress {
  platformPostId: string;
  platformPostUrl: string | null;
  /** The thread items (replies) already posted, in order: `replies[i]` is thread item i. */
  replies: Array<{ id: string; url?: string | null; cid?: string | null }>;
  /**
   * What the adapter needs besides ids to continue: the `extra` its result gives for the root alone
   * (Bluesky: `{cid}`), so a root found by `findPublished` can start a thread's progress too.
   */
  state?: Record<string, unknown>;
}

/**
 * A thread that stopped after its root was public: `progress` says what went out, `cause` why the
 * next reply failed (its kind decides what the engine does next, as for any failure). Never
 * `ambiguous`: built from a cause whose outcome is unknown, it is `rejected` with code
 * `thread_reply_unknown` and says so, so nothing re-sends that reply without a person deciding
 * (POST /v1/posts/{id}/retry).
 */
export class ThreadIncompleteError extends PlatformError {
  constructor(
    readonly progress: ThreadProgress,
    readonly itemCount: number,
    cause: PlatformError,
  ) {
    const unknown = cause.kind === 'ambiguous';
    super(
      unknown ? 'rejected' : cause.kind,
      `thread stopped after ${progress.replies.length} of ${itemCount} replies: ` +
        (unknown
          ? `reply ${progress.replies.length + 1} may or may not have been posted (${cause.message}); look at the thread, ` +
            'then retry the post to continue after the last reply shown here'
          : cause.message),
      {
        status: cause.status,
        retryAfterMs: cause.retryAfterMs,
        platformCode: unknown ? 'thread_reply_unknown' : cause.platformCode,
        endpoint: cause.endpoint,
        raw: cause.raw,
        revoked: cause.revoked,
        cause,
      },
    );
    this.name = 'ThreadIncompleteError';
  }
}

/** The connected account as an adapter sees it: decrypted tokens and platform metadata. */
export interface AccountCredentials {
  accountId: string;
  platformUserId: string;
  username: string;
  accessToken: string | null;
  refreshToken: string | null;
  tokenExpiresAt: Date | null;
  /** The scopes the platform said it granted, or null when it did not say. */
  scopes?: string[] | null;
  /** Platform data stored at connect time: page id, chat id, PDS url, organization urn, ... */
  metadata: Record<string, unknown>;
}

export interface MediaRef {
  type: 'image' | 'video' | 'gif' | 'document';
  url: string;
  mimeType?: string | null;
  size?: number | null;
  altText?: string | null;
  filename?: string | null;
  thumbnail?: string | null;
  /** The hosted API's `instagramThumbnail`: a cover image URL for a platform that takes one apart from `thumbnail`. */
  instagramThumbnail?: string | null;
}

export interface OpenedMedia {
  /** The bytes, streamed (never buffered whole for large files). */
  stream: NodeJS.ReadableStream;
  size: number | null;
  contentType: string;
}

/** What an adapter may use besides its config: injected so tests and the publishing log see every call. */
export interface PlatformIO {
  /**
   * fetch that records each call (endpoint, status, duration) for the publishing log. A large body of
   * bytes in memory (an upload) is sent over node:http without undici's copies (platforms/bytes-fetch.ts).
   */
  fetch: typeof fetch;
  /**
   * GET/HEAD of a URL a tenant chose (a link's page, its og:image): public addresses only, every
   * redirect re-checked, one neutral error for every refusal (lib/outbound.ts). Recorded like `fetch`.
   */
  fetchUrl: OutboundFetch;
  now(): Date;
  /** Opens a media item's bytes (a local upload from disk, or an external URL). */
  openMedia(media: MediaRef): Promise<OpenedMedia>;
  /** Aborted when the job lost its lease; check before an irreversible step. */
  signal?: AbortSignal;
  /**
   * Records what a thread has posted so far. Adapters await it after the root and after each reply,
   * before sending the next one, so a worker killed mid-thread leaves a record of every post that went
   * out except, at most, the one in flight.
   */
  threadProgress?(progress: ThreadProgress): Promise<void>;
}

export interface ThreadItem {
  content: string;
  media: MediaRef[];
}

export interface PublishRequest {
  account: AccountCredentials;
  /** Text for this target: its customContent, else the post's content. */
  content: string;
  media: MediaRef[];
  /** Replies after the root for platforms with threads (twitter, threads, bluesky); root = content + media. */
  threadItems: ThreadItem[];
  platformSpecificData: Record<string, unknown>;
  firstComment?: string | null;
  title?: string | null;
  /** Stable per target across attempts; adapters pass it to platforms that support idempotency. */
  idempotencyKey: string;
  /**
   * Set when an earlier attempt posted the root and some replies (see ThreadProgress): the adapter posts
   * only the remaining thread items, the first one as a reply to the last that went out.
   */
  resume?: ThreadProgress | null;
}

/**
 * What became of a target's first comment (platformSpecificData.firstComment), sent after the post went
 * out. Best effort: a comment that failed leaves the post published, and says so on the target.
 */
export type FirstCommentResult =
  | { status: 'posted'; commentId: string | null }
  | { status: 'failed'; errorMessage: string };

export interface PublishResult {
  platformPostId: string;
  platformPostUrl: string | null;
  /** What the adapter needs to continue a thread (ThreadProgress.state), and other ids the platform gave. */
  extra?: Record<string, unknown>;
  /** Set when the target asked for a first comment. */
  firstComment?: FirstCommentResult;
  /**
   * Account metadata the platform changed while publishing (Telegram: a group migrated to a supergroup
   * has a new chat id). The publishing engine merges it into the account (`mergeAccountMetadata`).
   */
  accountMetadata?: Record<string, unknown>;
  /**
   * The post is out, but the platform gives its public id and URL only later (`platformPostId` is a
   * stand-in and `platformPostUrl` null until then): what `lateUrl.resolve` asks with. The engine
   * records the target published and follows it up (see LateUrlCapability).
   */
  lateUrl?: ProcessingHandle;
}

/**
 * What an adapter needs to finish a publish whose media the platform is still processing: media ids and
 * the like, never the bytes. JSON-serialisable: the engine stores it on the target, so a check after a
 * crash finishes the publish without uploading again.
 */
export type ProcessingHandle = Record<string, unknown>;

/**
 * `publish` answered before the post exists: the platform is processing the media (video transcoding).
 * The engine records `handle` on the target (status `processing`), frees the worker and asks
 * `processing.check` again after about `waitMs`.
 */
export interface ProcessingStarted {
  processing: { handle: ProcessingHandle; waitMs: number };
}

/** What `publish` answers: the post, or media still processing (only adapters with a `processing` group). */
export type PublishOutcome = PublishResult | ProcessingStarted;

export function isProcessingStarted(outcome: PublishOutcome): outcome is ProcessingStarted {
  return 'processing' in outcome && typeof (outcome as ProcessingStarted).processing === 'object';
}

/** The platform's answer about media being processed. `failed.reason` is the platform's own words. */
export type ProcessingState =
  | { state: 'processing'; waitMs: number }
  | { state: 'ready' }
  | { state: 'failed'; reason: string; platformCode?: string | null };

/**
 * The processing capability: platforms that process media after the upload (X and LinkedIn video).
 * Both calls are reads of, or a post with, what the upload left on the platform: neither uploads again.
 */
interface ProcessingCapability {
  /** Asks the platform how the media of `handle` is doing (X: STATUS; LinkedIn: the video's status). Throws PlatformError. */
  check(handle: ProcessingHandle, req: PublishRequest, io: PlatformIO): Promise<ProcessingState>;
  /** Creates the post with the processed media, once `check` said ready. Throws PlatformError, like `publish`. */
  finish(handle: ProcessingHandle, req: PublishRequest, io: PlatformIO): Promise<PublishResult>;
}

/** A published post's public id and URL, learnt after the publish (LateUrlCapability). */
export interface ResolvedUrl {
  platformPostId: string;
  platformPostUrl: string;
}

/**
 * Platforms that make a post public some time after the publish ended (TikTok: after its moderation):
 * the target is published with a stand-in id and no URL, and a follow-up job asks again with backoff
 * until the post is public or `windowMs` has passed.
 */
interface LateUrlCapability {
  /** How long after the publish the follow-up keeps asking, ms. */
  readonly windowMs: number;
  /** The post's public id and URL, or null while it is not public. Only reads. Throws PlatformError. */
  resolve(handle: ProcessingHandle, req: PublishRequest, io: PlatformIO): Promise<ResolvedUrl | null>;
}

export interface TokenSet {
  accessToken: string;
  /** null/undefined when the platform sent none: the stored refresh token is kept. */
  refreshToken?: string | null;
  expiresAt?: Date | null;
  scopes?: string[] | null;
  /** Account metadata the platform reported along with a refresh (TikTok: the creator's options), merged into the account. */
  accountMetadata?: Record<string, unknown>;
}

export interface PlatformProfile {
  platformUserId: string;
  username: string;
  displayName?: string | null;
  profileUrl?: string | null;
  avatarUrl?: string | null;
  metadata?: Record<string, unknown>;
}

/** OAuth 2 authorization-code flow of one platform (PKCE where the platform supports it). */
export interface OAuthProvider {
  /** `extraScopes` are asked for besides the configured ones (a reconnect that adds analytics scopes). */
  authorizeUrl(p: {
    state: string;
    redirectUri: string;
    codeChallenge: string;
    scopes?: string[];
    extraScopes?: readonly string[];
  }): string;
  exchangeCode(p: { code: string; redirectUri: string; codeVerifier: string }, io: PlatformIO): Promise<TokenSet>;
  refresh(refreshToken: string, io: PlatformIO): Promise<TokenSet>;
  fetchProfile(tokens: TokenSet, io: PlatformIO): Promise<PlatformProfile>;
}

/**
 * `Out`: what `publish` answers. Adapters without a `processing` group answer the post itself
 * (`PlatformAdapter<PublishResult>`); the engine takes any adapter.
 */
export interface PlatformAdapter<Out extends PublishOutcome = PublishOutcome> {
  readonly platform: Platform;
  /**
   * Publishes one target. Throws PlatformError. An adapter with a `processing` group may answer
   * ProcessingStarted instead of waiting for the platform's processing inside the call.
   */
  publish(req: PublishRequest, io: PlatformIO): Promise<Out>;
  /** Media the platform processes after the upload (see ProcessingCapability). */
  readonly processing?: ProcessingCapability;
  /** Posts whose public id and URL come after the publish (see LateUrlCapability). */
  readonly lateUrl?: LateUrlCapability;
  /** `publish` posts the target's first comment under the post and reports it (PublishResult.firstComment). */
  readonly firstComments?: boolean;
  /**
   * After an ambiguous outcome: looks the post up on the platform (by the idempotency key or by content
   * and time). Returns it, or null when it is certainly not there. Absent when the platform offers no
   * way to check: the target then stays `unknown` for a person to decide.
   */
  findPublished?(req: PublishRequest, since: Date, io: PlatformIO): Promise<PublishResult | null>;
  /**
   * Deletes a post. `thread`: what the target's thread posted (root and replies, as recorded while it
   * went out), for platforms where deleting the root leaves the replies up.
   */
  unpublish?(
    account: AccountCredentials,
    platformPostId: string,
    io: PlatformIO,
    thread?: ThreadProgress | null,
  ): Promise<void>;
  /**
   * Edits the text of a published post (`POST /v1/posts/{postId}/edit`), where the platform's API allows
   * it. Media never change. Throws PlatformError (`rejected` for what the platform refuses to edit).
   */
  editText?(req: EditTextRequest, io: PlatformIO): Promise<EditTextResult>;
  /**
   * Changes a published video's metadata without uploading it again (`POST /v1/posts/{postId}/update-metadata`).
   * Answers the fields it changed. Throws PlatformError.
   */
  updateMetadata?(req: MetadataUpdateRequest, io: PlatformIO): Promise<string[]>;
  /** Token refresh for platforms whose tokens expire (OAuth refresh, Bluesky session refresh). */
  refreshTokens?(account: AccountCredentials, io: PlatformIO): Promise<TokenSet>;
  oauth?: OAuthProvider;
  /** Destinations an account posts to: pages, organizations, boards, locations (see DestinationsCapability). */
  readonly destinations?: DestinationsCapability;
  /**
   * How accounts connect when it is not through `oauth` (an OAuth 2 grant): a login with credentials
   * (Bluesky app password) or a bot added to a chat (Telegram). Code outside a platform's folder tests
   * this group, never the platform's name.
   */
  readonly connect?: CredentialsConnect | BotConnect;
  /** Conversations, comments and reviews (the inbox add-on); see InboxCapability. */
  readonly inbox?: InboxCapability;
  /** Post and account metrics (see AnalyticsCapability). */
  readonly analytics?: AnalyticsCapability;
  /**
   * Account settings the platform keeps (settings.ts), keyed by route name (`messenger-menu`); the
   * platform's descriptor declares their routes with accountSettingTools.
   */
  readonly settings?: Readonly<Record<string, AccountSetting>>;
}

/** The fields of a metadata update (the hosted contract's `updatePostMetadata`); at least one is set. */
export interface MetadataFields {
  title?: string;
  description?: string;
  tags?: string[];
  categoryId?: string;
  privacyStatus?: 'public' | 'private' | 'unlisted';
  /** A public image URL, fetched through `io.openMedia` (the outbound guard). */
  thumbnailUrl?: string;
  madeForKids?: boolean;
  containsSyntheticMedia?: boolean;
}

interface MetadataUpdateRequest {
  account: AccountCredentials;
  videoId: string;
  fields: MetadataFields;
}

/** What `editText` changes: one published copy of a post. */
export interface EditTextRequest {
  account: AccountCredentials;
  platformPostId: string;
  platformPostUrl: string | null;
  /** The new text, as the post's own text is written (the adapter escapes it as it does when publishing). */
  content: string;
  /** The copy was published with media: some platforms edit a caption rather than a text. */
  hasMedia: boolean;
  /** The target's platformSpecificData at publish time (Reddit: a link post has no body). */
  platformSpecificData: Record<string, unknown>;
}

export interface EditTextResult {
  /** The id after the edit: X gives a new one, every other platform keeps the original. */
  platformPostId: string;
  platformPostUrl: string | null;
}

/*
 * Capability groups: a capability exists when its object exists. `publish` is required; the others are
 * optional groups on PlatformAdapter.
 */

/**
 * Connect by logging in with an identifier and a secret (a handle and an app password). The routes
 * (POST /v1/connect/{platform} and /v1/connect/{platform}/credentials) are the same for every platform
 * of this kind; what differs is here.
 */
export interface CredentialsConnect {
  readonly kind: 'credentials';
  /** Where logins go (shown in the connection log). */
  readonly serviceUrl: string;
  /**
   * Refuses a secret of the wrong shape before any call (a main password where an app password is
   * required): the sentence for the caller and the one for `details.fields.appPassword`; null when fine.
   */
  checkSecret?(secret: string): { message: string; field: string } | null;
  login(identifier: string, secret: string, io: PlatformIO): Promise<{ tokens: TokenSet; profile: PlatformProfile }>;
  /** A sentence added to the connect answer's message (what some features need of the secret). */
  readonly note?: string;
}

/**
 * Connect a chat the server's bot was added to: the calls the access-code flow needs (GET, POST and
 * PATCH /v1/connect/{platform}, the same for every platform of this kind), and the platform's rules.
 */
export interface BotConnect {
  readonly kind: 'bot';
  /** Whether `ref` names a chat the way the platform does (a numeric id, an @username). */
  isChatRef(ref: string): boolean;
  /** Whether the bot (`botId`) may post in `chat` (asks the platform for its rights there). */
  canPost(chat: BotChat, botId: string, io: PlatformIO): Promise<boolean>;
  /** The chat's public address, when it has one. */
  chatUrl(chat: BotChat): string | null;
  getMe(io: PlatformIO): Promise<BotIdentity>;
  getChat(chatRef: string, io: PlatformIO): Promise<BotChat>;
  /** Messages the bot can see that are not yet consumed, for matching access codes. */
  recentMessages(io: PlatformIO): Promise<BotSeenMessage[]>;
}

/** The server's bot, in the platform's terms mapped to these. */
interface BotIdentity {
  id: string;
  username: string;
}

/** A chat the bot is in: `type` is the platform's own word for it (a channel, a group, a private chat). */
export interface BotChat {
  id: string;
  type: string;
  /** The chat's title, or the person's name for a private chat, or its id when it has neither. */
  title: string;
  username: string | null;
}

/** A message the bot can see: the chat it was posted in and its text (a media caption included). */
interface BotSeenMessage {
  chatId: string;
  text: string;
}

/*
 * Inbox: direct messages, comments and reviews. A platform declares what it can do by the functions it
 * has; Herald answers 400 PLATFORM_LIMITATION for anything absent (never a silent no-op). Items come in
 * two ways, both normalised to an InboxBatch: `sync` polls with a cursor Herald keeps per account, and
 * `webhook` turns a pushed update (Telegram updates, Meta webhooks) into batches for the accounts it
 * names. Ids are the platform's own: Herald keys its rows on (account, platform id).
 */

/** Someone on the platform: a sender, a commenter, a reviewer. */
export interface InboxPerson {
  id: string | null;
  name?: string | null;
  username?: string | null;
  picture?: string | null;
}

export interface InboxAttachment {
  type: 'image' | 'video' | 'audio' | 'file' | 'sticker' | 'share';
  url: string;
  id?: string | null;
  filename?: string | null;
  previewUrl?: string | null;
}

/** One direct message, as a poll or a push found it. */
export interface InboundMessage {
  /** The platform's conversation id (what the API shows as the conversation's `id`). */
  conversationId: string;
  messageId: string;
  /** `outgoing`: sent by the account itself (from Herald or elsewhere); never an event. */
  direction: 'incoming' | 'outgoing';
  sender: InboxPerson;
  /** The other side of the conversation (for a new conversation row); defaults to the sender of an incoming message. */
  participant?: InboxPerson | null;
  text: string | null;
  attachments?: InboxAttachment[];
  sentAt: Date;
  /** Reddit's subject line. */
  subject?: string | null;
  conversationUrl?: string | null;
  /** Platform data kept on the message (shown to no one; handed back to actions). */
  extra?: Record<string, unknown>;
}

/** The account's post a comment is under, as the platform describes it (first sight creates the row). */
interface InboxPostInfo {
  content?: string | null;
  picture?: string | null;
  permalink?: string | null;
  postedAt?: Date | null;
  /** Data actions need later (Bluesky: the post's cid; Reddit: subreddit). */
  extra?: Record<string, unknown>;
}

export interface InboundComment {
  postId: string;
  commentId: string;
  /** The comment this one answers, when it is a reply to a comment rather than to the post. */
  parentId?: string | null;
  direction: 'incoming' | 'outgoing';
  author: InboxPerson;
  text: string;
  createdAt: Date;
  url?: string | null;
  likeCount?: number;
  post?: InboxPostInfo;
  /** Data actions need later (Bluesky: cid, rootUri, rootCid). */
  extra?: Record<string, unknown>;
}

/**
 * A post or comment by someone else that mentions the account (X's mentions timeline, Bluesky's
 * `mention` notifications). Kept apart from comments: it is not under one of the account's posts.
 */
export interface InboundMention {
  /** The platform id of the mentioning item (a post, or the comment when `commentId` is set). */
  mentionId: string;
  /** The post (media) the mention is in: what a reply to the mention names as `mediaId`. */
  mediaId: string;
  /** The mentioning comment under `mediaId`, when the mention is in a comment rather than the post. */
  commentId?: string | null;
  author: InboxPerson;
  text: string;
  createdAt: Date;
  url?: string | null;
  /** Data a reply needs later (Bluesky: cid, rootUri, rootCid). */
  extra?: Record<string, unknown>;
}

export interface InboundReview {
  reviewId: string;
  reviewer: InboxPerson;
  rating: number | null;
  text: string | null;
  createdAt: Date;
  url?: string | null;
  reply?: { id: string; text: string; createdAt: Date } | null;
  extra?: Record<string, unknown>;
}

/**
 * A delivery or read receipt of the account's own messages in one conversation (Messenger's
 * `message_deliveries` and `message_reads`, Instagram's `messaging_seen`): every message the account sent
 * at or before `watermark` (or, without one, at or before the message `upToMessageId`), and those named
 * in `messageIds`, reached the person (`delivered`) or were seen (`read`).
 */
export interface InboundReceipt {
  conversationId: string;
  status: 'delivered' | 'read';
  watermark?: Date;
  /** The platform id of the last message seen (Instagram's `read.mid`): the bound when there is no watermark. */
  upToMessageId?: string;
  messageIds?: string[];
}

/** A reaction added to or removed from a message of a conversation (Messenger's and Instagram's `message_reactions`). */
export interface InboundReaction {
  conversationId: string;
  messageId: string;
  action: 'added' | 'removed';
  /** The emoji; may be empty on a removal. */
  emoji: string;
  sender: InboxPerson;
  /** Whether the account itself reacted (from the platform's own app) rather than the participant. */
  fromAccount: boolean;
  reactedAt: Date;
}

/**
 * A change of who answers a conversation that the platform pushed (Messenger's `messaging_handovers`):
 * the conversation was passed to this app (`app`) or taken from it by another (`other`).
 */
export interface InboundHandover {
  conversationId: string;
  owner: 'app' | 'other';
  /** The note the other app sent with the pass or take. */
  note: string | null;
  at: Date;
}

/**
 * A click on a link or ad that opened an existing conversation without a message (Messenger's
 * `messaging_referrals`, Instagram's `messaging_referral`). `referral` holds only the documented keys of
 * Meta's object (graph/referral.ts); a first message after a click carries it in its `extra.referral`.
 */
export interface InboundReferral {
  conversationId: string;
  /** The person who clicked. */
  sender: InboxPerson;
  referral: Record<string, unknown>;
  /** When the platform says the click happened (ms precision). */
  referredAt: Date;
}

/** What one poll or one pushed update brought for one account. */
export interface InboxBatch {
  messages?: InboundMessage[];
  comments?: InboundComment[];
  reviews?: InboundReview[];
  mentions?: InboundMention[];
  receipts?: InboundReceipt[];
  reactions?: InboundReaction[];
  handovers?: InboundHandover[];
  referrals?: InboundReferral[];
  /** Where the next poll starts (stored per account as given); undefined keeps the stored one. */
  cursor?: Record<string, unknown> | null;
}

/** A message to send from Herald (POST /v1/inbox/conversations/{id}/messages), already validated. */
export interface OutgoingMessage {
  conversationId: string;
  text: string | null;
  /** A file the caller attached; the adapter uploads or links it as the platform wants. */
  attachment?: { type: InboxAttachment['type']; url: string; filename?: string | null } | null;
  quickReplies?: Array<{ title: string; payload: string; imageUrl?: string }>;
  buttons?: Array<{
    type: 'url' | 'postback' | 'phone';
    title: string;
    url?: string;
    payload?: string;
    phone?: string;
  }>;
  template?: { type: 'generic'; elements: Array<Record<string, unknown>> };
  replyMarkup?: Record<string, unknown>;
  messagingType?: string;
  messageTag?: string;
  /** A platform message id to reply to (Telegram). */
  replyTo?: string | null;
  /** The conversation's stored platform data, and its participant. */
  conversation: { participantId: string | null; metadata: Record<string, unknown>; lastIncomingAt: Date | null };
}

/** What the platform answered to a send: the message as Herald stores it (outgoing). */
interface SentMessage {
  messageId: string;
  sentAt: Date;
  extra?: Record<string, unknown>;
}

/** The comment an action is about, with what Herald stored from the platform about it and its post. */
export interface CommentRef {
  postId: string;
  commentId: string;
  /** The comment's stored platform data (cid, rootUri...), and what the caller sent (cid, likeUri). */
  extra: Record<string, unknown>;
  post: Record<string, unknown>;
}

/** Which interactive parts of a message a platform takes; absent = refused with PLATFORM_LIMITATION. */
export interface MessageFeatures {
  /** `true`: any type; a list: only those types (another is refused). */
  attachments?: boolean | readonly InboxAttachment['type'][];
  quickReplies?: boolean;
  buttons?: boolean;
  templates?: boolean;
  replyMarkup?: boolean;
  /**
   * The platform's reply window (Messenger's 24 hours): after `hours` since the participant's last
   * message, a message needs messagingType MESSAGE_TAG with one of `tags`, else it is refused before the
   * platform is called.
   */
  replyWindow?: { hours: number; tags: readonly string[] };
}

interface InboxConversations {
  readonly features: MessageFeatures;
  send(account: AccountCredentials, message: OutgoingMessage, io: PlatformIO): Promise<SentMessage>;
  /** Edits a message the account sent (Telegram's editMessageText). */
  edit?(
    account: AccountCredentials,
    req: { conversationId: string; messageId: string; text?: string; replyMarkup?: Record<string, unknown> },
    io: PlatformIO,
  ): Promise<void>;
  /**
   * Archiving is Herald's own status of the conversation; a platform that can archive too is told
   * (absent: the platform has no archive, and archiving is refused as a PLATFORM_LIMITATION).
   */
  archive?(account: AccountCredentials, conversationId: string, archived: boolean, io: PlatformIO): Promise<void>;
  /** Starts a conversation with someone (X: by user id); answers the sent message and the conversation. */
  create?(
    account: AccountCredentials,
    req: { participantId: string; text: string },
    io: PlatformIO,
  ): Promise<SentMessage & { conversationId: string }>;
  /** Deletes a message of the conversation (Telegram: the bot's own or, as admin, others'). */
  deleteMessage?(account: AccountCredentials, req: MessageRef, io: PlatformIO): Promise<void>;
  /** Shows "typing..." to the other side (best effort: Herald answers 200 either way). */
  typing?(account: AccountCredentials, req: MessageRef, io: PlatformIO): Promise<void>;
  /** Reacts to a message with an emoji, or (`emoji` null) removes the account's reaction. */
  react?(account: AccountCredentials, req: MessageRef & { emoji: string | null }, io: PlatformIO): Promise<void>;
  /** Messenger's handover protocol: release, take or pass control of the thread. */
  threadControl?(
    account: AccountCredentials,
    req: MessageRef & { action: 'release' | 'take' | 'pass'; target?: string | null; note?: string | null },
    io: PlatformIO,
  ): Promise<{ owner: 'app' | 'ai_agent' | 'other' }>;
}

/** The conversation (and message) an action is about, with what Herald stored of the conversation. */
export interface MessageRef {
  conversationId: string;
  messageId?: string;
  participantId: string | null;
  metadata: Record<string, unknown>;
}

export interface InboxComments {
  /** Replies under the post (`commentId` null) or to one comment. */
  reply(
    account: AccountCredentials,
    req: {
      postId: string;
      commentId: string | null;
      text: string;
      extra: Record<string, unknown>;
      post: Record<string, unknown>;
    },
    io: PlatformIO,
  ): Promise<{ commentId: string; extra?: Record<string, unknown> }>;
  delete?(account: AccountCredentials, ref: CommentRef, io: PlatformIO): Promise<void>;
  hide?(account: AccountCredentials, ref: CommentRef, hidden: boolean, io: PlatformIO): Promise<void>;
  /** Answers what unliking needs later (Bluesky: the like record's URI). */
  like?(account: AccountCredentials, ref: CommentRef, io: PlatformIO): Promise<{ likeUri?: string | null }>;
  unlike?(account: AccountCredentials, ref: CommentRef, io: PlatformIO): Promise<void>;
  privateReply?(
    account: AccountCredentials,
    ref: CommentRef,
    text: string,
    io: PlatformIO,
  ): Promise<{ messageId: string }>;
  /**
   * Fields an action needs from the caller when Herald has not stored them (Bluesky: `cid` to like,
   * `likeUri` to unlike): a missing one is a 400 naming it.
   */
  readonly requires?: { like?: string[]; unlike?: string[] };
  /** Replaces the text of a comment the account wrote (Reddit's editusertext). */
  edit?(account: AccountCredentials, ref: CommentRef, text: string, io: PlatformIO): Promise<void>;
  /** The post owner's moderation queue (YouTube's comments.setModerationStatus). */
  moderate?(
    account: AccountCredentials,
    ref: CommentRef,
    req: { status: 'published' | 'rejected' | 'heldForReview'; banAuthor: boolean },
    io: PlatformIO,
  ): Promise<void>;
  /** Pins (or unpins) a top-level comment on the post. */
  pin?(account: AccountCredentials, ref: CommentRef, pinned: boolean, io: PlatformIO): Promise<void>;
  /** Likes (or unlikes) a post as the account; answers what unliking needs later. */
  likePost?(
    account: AccountCredentials,
    req: { postId: string; liked: boolean; extra: Record<string, unknown> },
    io: PlatformIO,
  ): Promise<{ likeUri?: string | null }>;
  /** Answers a mention of the account: under the mentioning comment, or on the media that mentions it. */
  replyToMention?(
    account: AccountCredentials,
    req: { mediaId: string; commentId: string | null; text: string; extra: Record<string, unknown> },
    io: PlatformIO,
  ): Promise<{ id: string }>;
}

interface InboxReviews {
  reply?(
    account: AccountCredentials,
    req: { reviewId: string; text: string; extra: Record<string, unknown> },
    io: PlatformIO,
  ): Promise<{ replyId: string }>;
  deleteReply?(
    account: AccountCredentials,
    req: { reviewId: string; replyId: string | null; extra: Record<string, unknown> },
    io: PlatformIO,
  ): Promise<void>;
}

/** A pushed update as Herald received it on /v1/platform-webhooks/{platform}. */
export interface PlatformWebhookRequest {
  method: string;
  headers: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
  /** The exact bytes, for signature checks. */
  rawBody: Buffer;
  /** The secret Herald derived for this platform's callback (Telegram's secret_token). */
  secret: string;
}

/** Which account an update is for: the platform user id Herald stored, or a test over its metadata. */
export type AccountMatch =
  | { platformUserId: string }
  | { metadata: (metadata: Record<string, unknown>, platformUserId: string) => boolean };

export type PlatformWebhookAnswer =
  /** Refused (bad signature, wrong secret): nothing is stored. */
  | { kind: 'refused'; status: 401 | 403 | 400; message: string }
  /** A handshake (Meta's hub.challenge): answered as given, nothing stored. */
  | { kind: 'reply'; status: number; contentType: string; body: string }
  /** Accepted: batches to ingest for the accounts they name. */
  | { kind: 'accepted'; deliveries: Array<{ account: AccountMatch; batch: InboxBatch }> };

export interface InboxWebhook {
  receive(req: PlatformWebhookRequest): PlatformWebhookAnswer;
  /**
   * Registers Herald's callback with the platform (Telegram setWebhook, Graph /{app-id}/subscriptions).
   * Called by the worker once per start while the callback URL is known.
   */
  register?(callbackUrl: string, secret: string, io: PlatformIO): Promise<void>;
}

export interface InboxCapability {
  readonly conversations?: InboxConversations;
  readonly comments?: InboxComments;
  readonly reviews?: InboxReviews;
  /**
   * Polls the platform for items since `cursor` (null: the first poll, which should look back only a
   * short while). Throws PlatformError; `rate_limited` makes Herald back off.
   */
  sync?(account: AccountCredentials, cursor: Record<string, unknown> | null, io: PlatformIO): Promise<InboxBatch>;
  readonly webhook?: InboxWebhook;
  /**
   * True when `sync` (or `webhook`) brings `mentions` of the account: GET /v1/inbox/mentions lists them;
   * on another platform naming an account or the platform there is 400 PLATFORM_LIMITATION.
   */
  readonly mentions?: boolean;
  /**
   * OAuth scopes the inbox needs for this account (by its metadata: a LinkedIn page and a member need
   * different ones). Connect asks for them by default; accounts/health names the ones an account was not
   * granted to users with the add-on.
   */
  scopes?(metadata: Record<string, unknown>): readonly string[];
}

/**
 * The normalized metric names every platform's insights are mapped onto (README "Analytics"). A platform
 * that has no such number leaves it out; it shows as 0.
 */
export const METRIC_NAMES = [
  'impressions',
  'reach',
  'likes',
  'comments',
  'shares',
  'saves',
  'clicks',
  'views',
] as const;
type MetricName = (typeof METRIC_NAMES)[number];
export type PostMetrics = Partial<Record<MetricName, number>>;

/** A published item whose metrics are read. */
interface MetricsTarget {
  platformPostId: string;
  publishedAt: Date;
}

/** An account's own numbers: followers (fans, connections) and, where the platform has them apart, subscribers. */
interface AccountMetrics {
  followers?: number | null;
  subscribers?: number | null;
}

/**
 * Analytics: reads of post and account metrics. Herald calls it on the ANALYTICS_SCHEDULE from its own
 * job lane; the adapter only reads and maps. Throws PlatformError (rate_limited with retryAfterMs when
 * the platform said; the collection job waits that long).
 */
export interface AnalyticsCapability {
  /** Most targets one `readPostMetrics` call takes (the platform's batch size; default 1). */
  readonly batchSize?: number;
  /**
   * The metrics of `targets` (all of this account), keyed by platformPostId. An item the platform did not
   * return is left out of the map; one it positively says no longer exists is also in `deleted`.
   */
  readPostMetrics(account: AccountCredentials, targets: MetricsTarget[], io: PlatformIO): Promise<PostMetricsRead>;
  /** Followers and subscribers, read daily. */
  readAccountMetrics?(account: AccountCredentials, io: PlatformIO): Promise<AccountMetrics>;
  /** OAuth scopes the reads need beyond posting (accounts/health lists the missing ones). */
  readonly scopes?: readonly string[];
  /**
   * The account's posts published at or after `since`, newest first, as the platform lists them
   * (Herald's own among them: the caller matches them on platformPostId). At most `limit` items.
   * Present on platforms whose API lists an account's posts; it makes `source=external` work.
   */
  listPosts?(account: AccountCredentials, since: Date, limit: number, io: PlatformIO): Promise<ListedPost[]>;
}

/**
 * What `readPostMetrics` found: metrics by platformPostId and, on platforms with a documented and
 * unambiguous not-found answer for a post, `deleted`: the ids the platform says do not exist any more.
 * Never an id that is merely missing from an answer (private, no permission, not indexed yet) or whose
 * read failed (those throw, or are left out): collection takes `deleted` as the post gone for good.
 */
export type PostMetricsRead = Map<string, PostMetrics> & { deleted?: ReadonlySet<string> };

/** One of an account's posts as its platform lists it (external posts sync). */
export interface ListedPost {
  platformPostId: string;
  platformPostUrl: string | null;
  content: string;
  publishedAt: Date;
  /** The first media item, when the listing shows one. */
  media?: { type: 'image' | 'video'; url: string } | null;
}

/** What an account posts to on platforms where a user manages several: `page` (Facebook), `organization`
 * (LinkedIn), `board` (Pinterest), `location` (Google Business), `profile` (Snapchat public profile),
 * `channel` (YouTube). */
export type DestinationKind = 'page' | 'organization' | 'board' | 'location' | 'profile' | 'channel';

/** One destination as the platform lists it for a token. */
export interface Destination {
  id: string;
  name: string;
  username?: string | null;
  picture?: string | null;
  /** What the platform's wire shows besides: urn, vanityName, category, fan_count, address, privacy... */
  details: Record<string, unknown>;
  /**
   * The destination's own tokens, when it has some (a Facebook Page's access token). Never shown: a
   * presenter reads `details`, and `select` hands these on to be sealed with the account.
   */
  tokens?: TokenSet;
}

/**
 * Who chooses: the connected user's profile, and the tokens the account holds (at connect, the fresh
 * ones from the OAuth exchange; later, the stored ones).
 */
export interface DestinationUser {
  profile: PlatformProfile;
  tokens: TokenSet;
}

/** What choosing a destination stores on the account. */
export interface DestinationSelection {
  /** Merged over the account's metadata (the destination's id, urn, ...): what `publish` reads. */
  metadata: Record<string, unknown>;
  /** The account as shown: username, display name, avatar, url (platformUserId stays the connected user's). */
  profile: PlatformProfile;
  /** Replace the account's tokens (the Page token that publishes for a Facebook Page); sealed at rest. */
  tokens?: TokenSet;
}

/**
 * Destinations capability: list what the token's user can post to, and turn a choice into what is stored.
 * Herald checks a chosen id against `list` for the same token before calling `select`, so `select`
 * only ever sees a destination the platform listed.
 */
export interface DestinationsCapability {
  readonly kind: DestinationKind;
  /** The user themself is a valid choice (LinkedIn: post as the member): `select(null, ...)`. */
  readonly personal?: boolean;
  /**
   * The logged-in user is the one destination (Instagram Login): a headless connection saves it as any
   * headless flow does, and hands no selection to the caller whatever the platform's wire declares.
   */
  readonly selfOnly?: boolean;
  /** `opts.ids` restricts the answer to those destinations (details lookup). Throws PlatformError. */
  list(tokens: { accessToken: string }, io: PlatformIO, opts?: { ids?: string[] }): Promise<Destination[]>;
  /** `destination` null: post as the user (only when `personal`). */
  select(destination: Destination | null, user: DestinationUser, io: PlatformIO): Promise<DestinationSelection>;
  /**
   * The token that lists destinations for a connected account (default: its access token). A platform
   * whose selection replaces the access token (Facebook Page token) keeps the user's token elsewhere
   * among the account's tokens and says which here.
   */
  listingToken?(account: AccountCredentials): string | null;
}
