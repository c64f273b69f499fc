import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthSim, OAuthUser } from '../oauth.js';
import type { SimulatorState } from '../types.js';

/** What the LinkedIn simulator remembers (in the framework's `data`, so `_reset` clears it). */
export interface LiAsset {
  urn: string;
  kind: 'image' | 'document' | 'video';
  owner: string;
  status: 'WAITING_UPLOAD' | 'PROCESSING' | 'AVAILABLE' | 'PROCESSING_FAILED';
  /** Video: LinkedIn processes it after finalizeUpload until `readyAt` (ms), then AVAILABLE (or PROCESSING_FAILED when `fails`). */
  processing?: { readyAt: number; fails: boolean };
  size: number;
  mimeType: string | null;
  /** Video: expected byte ranges and what arrived. */
  parts: { firstByte: number; lastByte: number; etag: string | null }[];
}

export interface LiOrganization {
  id: string;
  localizedName: string;
  vanityName: string;
  localizedWebsite: string | null;
  /** Member ids with the ADMINISTRATOR role. */
  admins: string[];
}

export interface LiPerson {
  member: string;
  vanityName: string;
  firstName: string;
  lastName: string;
  /** Organization ids the member follows (People Typeahead only finds followers). */
  follows: string[];
}

export interface LiPost {
  urn: string;
  author: string;
  commentary: string;
  createdAt: number;
  body: Record<string, unknown>;
  deleted: boolean;
}

/** A comment (or a reply to one), as the Comments API stores it. */
export interface LiComment {
  id: string;
  /** `urn:li:comment:(<post urn>,<id>)`. */
  urn: string;
  actor: string;
  /** The post the comment is under. */
  object: string;
  /** The comment this one answers, for a reply. */
  parentComment: string | null;
  text: string;
  createdAt: number;
  deleted: boolean;
}

/**
 * One Organizational Entity Notification (mentions.ts): an action on or about a page, as the
 * `organizationalEntityNotifications` criteria finder lists it. Only SHARE_MENTION is made here.
 */
interface LiNotification {
  notificationId: number;
  organizationalEntity: string;
  action: string;
  /** The post the action is about: for SHARE_MENTION, the post that mentions the page. */
  sourcePost: string;
  lastModifiedAt: number;
}

export interface LiStore {
  assets: Map<string, LiAsset>;
  posts: Map<string, LiPost>;
  /** Comments by URN. */
  comments: Map<string, LiComment>;
  /** Reactions: `<actor>|<entity urn>` -> reaction type. */
  reactions: Map<string, string>;
  notifications: LiNotification[];
  organizations: Map<string, LiOrganization>;
  people: LiPerson[];
  nextId: bigint;
}

export const SANDBOX_ORGANIZATION: Omit<LiOrganization, 'admins'> = {
  id: '2414183',
  localizedName: 'Herald Sandbox Inc',
  vanityName: 'herald-sandbox',
  localizedWebsite: 'https://herald.example',
};

export const SANDBOX_PERSON: Omit<LiPerson, 'follows'> = {
  member: 'urn:li:person:jd8ZqL3x1',
  vanityName: 'jane-doe',
  firstName: 'Jane',
  lastName: 'Doe',
};

export function liStore(state: SimulatorState): LiStore {
  let store = state.data.get('li') as LiStore | undefined;
  if (!store) {
    // The sandbox's default member administers the sandbox page.
    const firstUser = 'linkedin-user-1';
    store = {
      assets: new Map(),
      posts: new Map(),
      comments: new Map(),
      reactions: new Map(),
      notifications: [],
      organizations: new Map([[SANDBOX_ORGANIZATION.id, { ...SANDBOX_ORGANIZATION, admins: [firstUser] }]]),
      people: [{ ...SANDBOX_PERSON, follows: [SANDBOX_ORGANIZATION.id] }],
      nextId: 7100000000000000000n,
    };
    state.data.set('li', store);
  }
  return store;
}

/** Increasing 19-digit ids (BigInt: they are past Number's exact range). */
export function nextLiId(store: LiStore): string {
  store.nextId += 1n + BigInt(Math.floor(Math.random() * 1000));
  return store.nextId.toString();
}

/** Adds a company page administered by `adminIds` (tests of organization selection). */
export function addLinkedInOrganization(
  state: SimulatorState,
  org: Omit<LiOrganization, 'admins'>,
  adminIds: string[],
): void {
  liStore(state).organizations.set(org.id, { ...org, admins: [...adminIds] });
}

/** LinkedIn's error body. */
export function liError(reply: FastifyReply, status: number, message: string, extra: Record<string, unknown> = {}) {
  return reply.status(status).send({ status, message, ...extra });
}

/**
 * Every `/rest/*` call must carry `LinkedIn-Version: YYYYMM` (a version LinkedIn still serves: about the
 * last twelve months) and `X-Restli-Protocol-Version: 2.0.0`. Sends the error and returns false otherwise.
 */
export function checkRestHeaders(request: FastifyRequest, reply: FastifyReply, now: Date): boolean {
  const version = request.headers['linkedin-version'];
  if (typeof version !== 'string' || !version) {
    liError(reply, 400, 'A version must be present. Please specify a version by adding the LinkedIn-Version header.', {
      code: 'VERSION_MISSING',
    });
    return false;
  }
  const m = /^(\d{4})(\d{2})(?:\.(\d{2}))?$/.exec(version);
  const month = m ? Number(m[1]) * 12 + Number(m[2]) - 1 : NaN;
  const current = now.getUTCFullYear() * 12 + now.getUTCMonth();
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 12 || month > current || current - month > 12) {
    liError(reply, 426, `Requested version ${version} is not active`, { code: 'NONEXISTENT_VERSION' });
    return false;
  }
  if (request.headers['x-restli-protocol-version'] !== '2.0.0') {
    liError(reply, 400, 'This endpoint requires X-Restli-Protocol-Version: 2.0.0', { code: 'ILLEGAL_ARGUMENT' });
    return false;
  }
  return true;
}

/** The member behind the bearer token, or null after sending LinkedIn's 401. */
export function member(request: FastifyRequest, reply: FastifyReply, oauth: OAuthSim): OAuthUser | null {
  const user = oauth.userFor(request.headers.authorization);
  if (!user) {
    liError(reply, 401, 'Invalid access token', { serviceErrorCode: 65600, code: 'INVALID_ACCESS_TOKEN' });
    return null;
  }
  return user;
}

/** True when `urn` is the member or a page the member administers. */
export function canActAs(store: LiStore, user: OAuthUser, urn: string): boolean {
  if (urn === `urn:li:person:${user.id}`) return true;
  const org = /^urn:li:organization:(\d+)$/.exec(urn);
  return !!org && (store.organizations.get(org[1])?.admins.includes(user.id) ?? false);
}

/** The asset with its processing settled at `nowMs`: a video PROCESSING past its time becomes AVAILABLE or PROCESSING_FAILED. */
export function settleAsset(asset: LiAsset, nowMs: number): LiAsset {
  if (asset.status === 'PROCESSING' && asset.processing && nowMs >= asset.processing.readyAt) {
    asset.status = asset.processing.fails ? 'PROCESSING_FAILED' : 'AVAILABLE';
  }
  return asset;
}
