import { createHash, randomBytes } from 'node:crypto';
import { graphError as coreGraphError } from '../graph/errors.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FaultKind } from '../faults.js';
import { hangUp, type SimulatorState } from '../types.js';

/*
 * The Threads simulator's memory: users, tokens, containers and published threads, and Graph's error
 * shape. https://developers.facebook.com/docs/threads
 */

export interface ThUser {
  /** Login id (`login_hint` on authorize picks the user). */
  login: string;
  /** The Threads user id: digits, stable for the same login. */
  id: string;
  username: string;
  name: string;
}

export interface ThToken {
  user: ThUser;
  kind: 'short' | 'long' | 'app';
  issuedAt: number;
  expiresAt: number;
  revoked: boolean;
  /** The permissions the user granted at authorization (kept through the exchange and refreshes). */
  scopes: string[];
}

type ContainerType = 'TEXT' | 'IMAGE' | 'VIDEO' | 'CAROUSEL';

export interface ThMedia {
  type: 'image' | 'video';
  url: string;
  mimeType: string;
  size: number;
  altText?: string;
}

export interface ThContainer {
  id: string;
  owner: string;
  mediaType: ContainerType;
  text: string;
  media: ThMedia | null;
  children: string[];
  isCarouselItem: boolean;
  replyTo: string | null;
  replyControl: string | null;
  createdAt: number;
  /** When the container stops being IN_PROGRESS (`_config processingMs`). */
  readyAt: number;
  /** Processing ends in an error (`_faults {op: 'processing'}`). */
  fails: boolean;
  publishedId: string | null;
}

export interface ThPost {
  id: string;
  owner: string;
  containerId: string;
  mediaType: ContainerType;
  text: string;
  shortcode: string;
  replyTo: string | null;
  rootId: string;
  children: string[];
  createdAt: number;
  deleted: boolean;
  /** A reply the root's author hid (`manage_reply?hide=true`). */
  hidden?: boolean;
}

export interface ThStore {
  users: Map<string, ThUser>;
  tokens: Map<string, ThToken>;
  codes: Map<
    string,
    { user: ThUser; clientId: string; redirectUri: string; used: boolean; expiresAt: number; scopes: string[] }
  >;
  containers: Map<string, ThContainer>;
  posts: Map<string, ThPost>;
  /** `POST /_oauth/faults`: the next token endpoint calls answer 500 or as a dead grant. */
  tokenFault: { kind: 'unavailable' | 'invalid_grant' | null; count: number };
  seq: number;
}

export function thStore(state: SimulatorState): ThStore {
  let store = state.data.get('threads') as ThStore | undefined;
  if (!store) {
    store = {
      users: new Map(),
      tokens: new Map(),
      codes: new Map(),
      containers: new Map(),
      posts: new Map(),
      tokenFault: { kind: null, count: 0 },
      seq: 0,
    };
    state.data.set('threads', store);
  }
  return store;
}

/** The user of a login: a numeric id derived from it, so the same login is the same Threads user. */
export function userFor(store: ThStore, login: string, name?: string): ThUser {
  let user = store.users.get(login);
  if (!user) {
    const digits = BigInt(`0x${createHash('sha256').update(login).digest('hex').slice(0, 13)}`)
      .toString()
      .padStart(16, '0');
    user = {
      login,
      id: `2${digits}`.slice(0, 17),
      username: login.toLowerCase().replace(/[^a-z0-9._]/g, '_'),
      name: name ?? `Sandbox ${login}`,
    };
    store.users.set(login, user);
  }
  return user;
}

/** Media and container ids are long decimal numbers on Threads. */
export function newId(store: ThStore, prefix: '17' | '18'): string {
  store.seq += 1;
  return `${prefix}${String(Date.now()).slice(-9)}${String(store.seq).padStart(6, '0')}`;
}

export const newToken = (kind: ThToken['kind']) =>
  `TH${kind === 'app' ? '|app|' : ''}${randomBytes(24).toString('base64url')}`;
export const newShortcode = () => randomBytes(8).toString('base64url').slice(0, 11);

/** Graph's timestamp format: `2024-09-12T23:17:39+0000`. */
export const graphTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+0000');

export const permalink = (username: string, shortcode: string) =>
  `https://www.threads.net/@${username}/post/${shortcode}`;

/**
 * Graph's error body (the core's, graph/errors.ts): `{error: {message, type, code, error_subcode?,
 * fbtrace_id}}`, type THApiException except for token errors (OAuthException), as Threads answers.
 */
export function graphError(
  reply: FastifyReply,
  status: number,
  code: number,
  message: string,
  opts: { type?: string; subcode?: number } = {},
) {
  return coreGraphError(reply, status, {
    message,
    code,
    type: opts.type ?? (code === 190 ? 'OAuthException' : 'THApiException'),
    subcode: opts.subcode,
  });
}

/** `(#100) ...`: a parameter Graph refuses. */
export const paramError = (reply: FastifyReply, message: string, subcode?: number) =>
  graphError(reply, 400, 100, `(#100) ${message}`, { subcode });

/**
 * Answers a fault of the five kinds in Graph's own words (true when answered): throttling is code 4
 * (HTTP 400, as Graph sends it), a transient failure code 2, an expired token code 190, a refusal code
 * 100 with subcode 2207051 (the account is restricted).
 */
export function sendFault(reply: FastifyReply, fault: FaultKind | null): boolean {
  if (fault === 'rate_limited')
    graphError(reply, 400, 4, '(#4) Application request limit reached', { type: 'OAuthException' });
  else if (fault === 'unavailable')
    graphError(reply, 500, 2, 'An unexpected error has occurred. Please retry your request later.', {
      type: 'OAuthException',
    });
  else if (fault === 'auth')
    graphError(reply, 400, 190, 'Error validating access token: Session has expired.', { subcode: 463 });
  else if (fault === 'rejected')
    graphError(reply, 400, 100, 'This account is restricted from posting.', { subcode: 2207051 });
  else return false;
  return true;
}

/** The ambiguous fault after the work is done: the connection drops before any answer. */
export function loseAnswer(reply: FastifyReply, fault: FaultKind | null): boolean {
  if (fault !== 'ambiguous') return false;
  hangUp(reply);
  return true;
}

/**
 * A Graph call's parameters: the query string merged with a form or JSON body (Graph takes either),
 * every value as a string.
 */
export function params(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((request.query ?? {}) as Record<string, unknown>))
    if (v !== undefined) out[k] = String(v);
  const body = request.body as unknown;
  let fromBody: Record<string, unknown> = {};
  if (Buffer.isBuffer(body)) {
    const text = body.toString('utf8');
    fromBody = text.trim().startsWith('{') ? safeJson(text) : Object.fromEntries(new URLSearchParams(text));
  } else if (typeof body === 'string') fromBody = Object.fromEntries(new URLSearchParams(body));
  else if (body && typeof body === 'object') fromBody = body as Record<string, unknown>;
  for (const [k, v] of Object.entries(fromBody))
    if (v !== undefined && v !== null) out[k] = typeof v === 'object' ? JSON.stringify(v) : String(v);
  return out;
}

/** The core's params (JSON values as they came) as strings: lists joined with commas, objects as JSON. */
export function stringParams(p: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(p)) {
    if (v === undefined || v === null) continue;
    out[k] =
      Array.isArray(v) && v.every((x) => typeof x !== 'object')
        ? v.join(',')
        : typeof v === 'object'
          ? JSON.stringify(v)
          : String(v);
  }
  return out;
}

function safeJson(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
}
