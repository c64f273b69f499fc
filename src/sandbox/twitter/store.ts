import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SimulatorState } from '../types.js';

/** What the X simulator remembers (kept in the framework's per-simulator `data`, so `_reset` clears it). */
export interface XUser {
  id: string;
  username: string;
  name: string;
  /**
   * X's `subscription_type` (Basic, Premium, PremiumPlus or None, the user object's field): editing a
   * post needs a paid one. Default None.
   */
  subscriptionType?: string;
}

export interface XGrant {
  id: string;
  userId: string;
  clientId: string;
  scopes: string[];
  revoked: boolean;
}

interface XToken {
  grantId: string;
  expiresAt: number;
}

export interface XTweet {
  id: string;
  authorId: string;
  text: string;
  createdAt: string;
  mediaIds: string[];
  replyTo: string | null;
  replySettings: string | null;
  deleted: boolean;
  /** The root post of the conversation (its own id for a root). */
  conversationId?: string;
  /** Users the post mentions (a reply mentions the author of the post it answers, as X adds it). */
  mentionIds?: string[];
  /** Hidden by the conversation's owner (PUT /2/tweets/{tweet_id}/hidden). */
  hidden?: boolean;
  /** The ids of the post's versions, oldest first, this one last (X's `edit_history_tweet_ids`); absent: never edited. */
  editHistory?: string[];
  /** The id of the version that replaced this one (an edit); only the newest version can be edited again. */
  editedInto?: string;
}

/** X's `edit_history_tweet_ids` of a post: its versions, oldest first. */
export const editHistoryOf = (t: XTweet): string[] => t.editHistory ?? [t.id];

/** One direct-message event (only MessageCreate here). */
export interface XDmEvent {
  id: string;
  conversationId: string;
  senderId: string;
  participantIds: [string, string];
  text: string;
  createdAt: string;
  mediaIds: string[];
}

export interface XMedia {
  id: string;
  ownerId: string;
  mediaType: string;
  category: string;
  totalBytes: number;
  segments: Map<number, Buffer>;
  finalized: boolean;
  /** Videos and GIFs: X processes them after FINALIZE (see `processingOf`); null for images. */
  processing: { startedAt: number | null; ms: number; fails: boolean } | null;
  altText: string | null;
}

export interface XStore {
  users: Map<string, XUser>;
  codes: Map<
    string,
    {
      clientId: string;
      redirectUri: string;
      challenge: string;
      method: string;
      scopes: string[];
      userId: string;
      expiresAt: number;
    }
  >;
  grants: Map<string, XGrant>;
  accessTokens: Map<string, XToken>;
  refreshTokens: Map<string, { grantId: string }>;
  tweets: Map<string, XTweet>;
  media: Map<string, XMedia>;
  /** Direct-message events, oldest first. */
  dmEvents: XDmEvent[];
  /** Posts each user likes. */
  likes: Map<string, Set<string>>;
  /** The account the consent page "logs in" as. */
  currentUserId: string;
  nextId: bigint;
}

export const DEFAULT_X_USER: XUser = { id: '1790000000000000001', username: 'herald_sandbox', name: 'Herald Sandbox' };

export function xStore(state: SimulatorState): XStore {
  let store = state.data.get('x') as XStore | undefined;
  if (!store) {
    store = {
      users: new Map([[DEFAULT_X_USER.id, { ...DEFAULT_X_USER }]]),
      codes: new Map(),
      grants: new Map(),
      accessTokens: new Map(),
      refreshTokens: new Map(),
      tweets: new Map(),
      media: new Map(),
      dmEvents: [],
      likes: new Map(),
      currentUserId: DEFAULT_X_USER.id,
      nextId: 1860000000000000000n,
    };
    state.data.set('x', store);
  }
  return store;
}

/** Snowflake-shaped ids (numeric strings of 19 digits), increasing. */
export function nextSnowflake(store: XStore): string {
  store.nextId += 1n + BigInt(Math.floor(Math.random() * 1000));
  return store.nextId.toString();
}

export function randomToken(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * Makes `user` the account the next consent "logs in" as (tests connect several X users this way).
 */
export function setXSandboxUser(state: SimulatorState, user: XUser): void {
  const store = xStore(state);
  store.users.set(user.id, { ...user });
  store.currentUserId = user.id;
}

/** Marks every access token of the simulator as expired now (what two hours of waiting would do). */
export function expireXAccessTokens(state: SimulatorState): void {
  for (const token of xStore(state).accessTokens.values()) token.expiresAt = 0;
}

/** X's problem for an invalid request, listing each offending parameter. */
export function invalidRequest(
  reply: FastifyReply,
  problems: { parameter: string; message: string; value?: unknown }[],
) {
  return reply.status(400).send({
    errors: problems.map((p) => ({
      parameters: { [p.parameter]: p.value === undefined ? [] : [p.value] },
      message: p.message,
    })),
    title: 'Invalid Request',
    detail: 'One or more parameters to your request was invalid.',
    type: 'https://api.twitter.com/2/problems/invalid-request',
  });
}

export function problem(reply: FastifyReply, status: number, title: string, detail: string, type = 'about:blank') {
  return reply.status(status).send({ title, detail, type, status });
}

/**
 * The caller of an API route: a live, unrevoked OAuth 2 user token with the scope the operation
 * needs. Sends the 401/403 and returns null otherwise.
 */
export function authenticate(
  request: FastifyRequest,
  reply: FastifyReply,
  state: SimulatorState,
  scope: string,
  now: number,
): { user: XUser; grant: XGrant } | null {
  const store = xStore(state);
  const header = request.headers.authorization ?? '';
  const token = header.startsWith('Bearer ') ? header.slice(7) : null;
  const entry = token ? store.accessTokens.get(token) : undefined;
  const grant = entry ? store.grants.get(entry.grantId) : undefined;
  if (!entry || !grant || grant.revoked || entry.expiresAt <= now) {
    problem(reply, 401, 'Unauthorized', 'Unauthorized');
    return null;
  }
  if (!grant.scopes.includes(scope)) {
    problem(reply, 403, 'Forbidden', `Missing scope ${scope}`, 'https://api.twitter.com/2/problems/client-forbidden');
    return null;
  }
  return { user: store.users.get(grant.userId)!, grant };
}

/**
 * Where X's processing of a medium stands at `nowMs`: images are never processed; a video or GIF is
 * `pending` until FINALIZE, then `in_progress` for the simulator's `processingMs`, then `succeeded` (or
 * `failed`, when a `processing` fault was set at FINALIZE).
 */
export function processingOf(
  media: XMedia,
  nowMs: number,
): { state: 'pending' | 'in_progress' | 'succeeded' | 'failed'; remainingMs: number } {
  const p = media.processing;
  if (!p) return { state: 'succeeded', remainingMs: 0 };
  if (p.startedAt === null) return { state: 'pending', remainingMs: p.ms };
  const remainingMs = p.startedAt + p.ms - nowMs;
  if (remainingMs > 0) return { state: 'in_progress', remainingMs };
  return { state: p.fails ? 'failed' : 'succeeded', remainingMs: 0 };
}

/**
 * A post `authorId` made on X itself at `at` (ms), outside Herald (what the user timeline then lists):
 * tests of external posts seed it this way. Answers its id.
 */
export function externalXPost(state: SimulatorState, authorId: string, text: string, at: number): string {
  const store = xStore(state);
  const id = nextSnowflake(store);
  const createdAt = new Date(at).toISOString();
  store.tweets.set(id, {
    id,
    authorId,
    text,
    createdAt,
    mediaIds: [],
    replyTo: null,
    replySettings: null,
    deleted: false,
    conversationId: id,
  });
  const author = store.users.get(authorId);
  state.posts.push({
    id,
    text,
    media: [],
    replyTo: null,
    author: author?.username ?? authorId,
    createdAt,
    extra: { authorId, external: true },
  });
  return id;
}
