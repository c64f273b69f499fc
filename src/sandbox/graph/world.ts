import { createHash, randomBytes } from 'node:crypto';
import type { SimulatorState } from '../types.js';

/*
 * What a Graph simulator knows: users (app-scoped ids, stable for the same login, so a test can connect
 * the same person twice), the two Pages each user manages (each with a linked Instagram professional
 * account, docs/sandbox.md), the tokens it issued and every object created since (photos, posts, videos,
 * containers), by id.
 */

export interface GraphUser {
  id: string;
  login: string;
  name: string;
}

export interface GraphPage {
  id: string;
  name: string;
  username: string;
  category: string;
  fanCount: number;
  ownerId: string;
  /** The linked Instagram professional account's id. */
  igUserId: string;
  igUsername: string;
}

/**
 * `instagram`: an Instagram Login token (graph.instagram.com), which acts as one Instagram professional
 * account. `app`: the app access token `{app-id}|{app-secret}` (webhook subscriptions).
 */
type TokenKind = 'user' | 'page' | 'instagram' | 'app';

export interface GraphToken {
  token: string;
  kind: TokenKind;
  userId: string;
  pageId?: string;
  /** The Instagram account an `instagram` token acts as. */
  igUserId?: string;
  clientId: string;
  /** Epoch ms; null never expires (a Page token derived from a long-lived user token). */
  expiresAt: number | null;
  longLived: boolean;
  scopes: string[];
  revoked: boolean;
  /** The app secret an `app` token carries (what the simulator signs webhooks with). */
  appSecret?: string;
}

/** An object of the graph: its spec node type and what the simulator keeps about it. */
export interface GraphObject {
  id: string;
  type: string;
  /** Page (or IG user) that owns it. */
  ownerId: string;
  createdAt: number;
  deleted?: boolean;
  data: Record<string, unknown>;
}

export interface GraphWorld {
  users: Map<string, GraphUser>;
  pages: Map<string, GraphPage>;
  tokens: Map<string, GraphToken>;
  objects: Map<string, GraphObject>;
  /** Page tokens already handed out, by `userId|pageId`, so the same Page keeps its token. */
  pageTokens: Map<string, string>;
  seq: number;
}

/** A numeric id as Graph's are (15-17 digits), stable for `seed`. */
export function stableId(seed: string): string {
  const n = BigInt(`0x${createHash('sha256').update(seed).digest('hex').slice(0, 13)}`);
  return (100000000000000n + (n % 899999999999999n)).toString();
}

export function world(state: SimulatorState): GraphWorld {
  let w = state.data.get('graph') as GraphWorld | undefined;
  if (!w) {
    w = { users: new Map(), pages: new Map(), tokens: new Map(), objects: new Map(), pageTokens: new Map(), seq: 0 };
    state.data.set('graph', w);
  }
  return w;
}

/** A fresh object id (numeric). */
export function newId(state: SimulatorState): string {
  const w = world(state);
  w.seq += 1;
  return stableId(`${state.platform}-object-${w.seq}-${randomBytes(4).toString('hex')}`);
}

/** The user of a login (created on first use) and their two Pages. */
export function userFor(state: SimulatorState, login: string, name?: string): GraphUser {
  const w = world(state);
  const id = stableId(`user-${login}`);
  let user = w.users.get(id);
  if (!user) {
    user = { id, login, name: name ?? `Sandbox ${login}` };
    w.users.set(id, user);
    for (const n of [1, 2]) {
      const pageId = stableId(`page-${login}-${n}`);
      w.pages.set(pageId, {
        id: pageId,
        name: `${user.name} Page ${n}`,
        username: `${login.toLowerCase().replace(/[^a-z0-9]/g, '')}page${n}`,
        category: n === 1 ? 'Brand' : 'Local business',
        fanCount: 1000 * n,
        ownerId: id,
        igUserId: stableId(`ig-${login}-${n}`),
        igUsername: `${login.toLowerCase().replace(/[^a-z0-9_.]/g, '')}_ig${n}`,
      });
    }
  }
  return user;
}

export function pagesOf(state: SimulatorState, userId: string): GraphPage[] {
  return [...world(state).pages.values()].filter((p) => p.ownerId === userId);
}

export function issueToken(state: SimulatorState, t: Omit<GraphToken, 'token' | 'revoked'>): GraphToken {
  const token: GraphToken = { ...t, token: `EAA${randomBytes(24).toString('base64url')}`, revoked: false };
  world(state).tokens.set(token.token, token);
  return token;
}

/** The Page token of `pageId` for the holder of `user` (a Page token lasts as long as the user token it came from). */
export function pageTokenFor(state: SimulatorState, user: GraphToken, pageId: string): GraphToken {
  const w = world(state);
  const key = `${user.userId}|${pageId}|${user.longLived ? 'long' : 'short'}`;
  const existing = w.pageTokens.get(key);
  const live = existing ? w.tokens.get(existing) : undefined;
  if (live && !live.revoked) return live;
  const t = issueToken(state, {
    kind: 'page',
    userId: user.userId,
    pageId,
    clientId: user.clientId,
    expiresAt: user.longLived ? null : user.expiresAt,
    longLived: user.longLived,
    scopes: user.scopes,
  });
  w.pageTokens.set(key, t.token);
  return t;
}

/** The live token of a request, or null (unknown, revoked or expired at `now`). */
export function liveToken(state: SimulatorState, token: string | undefined, now: number): GraphToken | null {
  // The app access token is the app id and secret themselves (any secret: the simulator keeps no app registry).
  const app = token ? /^(\d{5,20})\|(.+)$/.exec(token) : null;
  if (app)
    return {
      token: token!,
      kind: 'app',
      userId: '',
      clientId: app[1],
      expiresAt: null,
      longLived: true,
      scopes: [],
      revoked: false,
      appSecret: app[2],
    };
  const t = token ? world(state).tokens.get(token) : undefined;
  if (!t || t.revoked || (t.expiresAt !== null && t.expiresAt <= now)) return null;
  return t;
}
