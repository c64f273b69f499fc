import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FaultKind } from '../faults.js';
import type { OAuthSim, OAuthUser } from '../oauth.js';
import type { SimulatorState } from '../types.js';

/** What the Pinterest simulator remembers (in the framework's `data`, so `_reset` clears it). */

export interface PinBoard {
  id: string;
  ownerId: string;
  name: string;
  description: string;
  privacy: 'PUBLIC' | 'PROTECTED' | 'SECRET';
  createdAt: string;
}

/** A video registered with POST /v5/media. */
export interface PinMediaUpload {
  id: string;
  ownerId: string;
  /** The S3 form fields handed out with it: an upload must send them back unchanged. */
  fields: Record<string, string>;
  status: 'registered' | 'processing' | 'succeeded' | 'failed';
  /** Set by the upload: processing ends at `readyAt` (ms), as `failed` when `fails`. */
  readyAt: number | null;
  fails: boolean;
  size: number;
  contentType: string | null;
}

export interface PinRecord {
  id: string;
  ownerId: string;
  boardId: string;
  title: string | null;
  description: string | null;
  link: string | null;
  altText: string | null;
  media: { kind: 'image' | 'video'; urls: string[]; mediaId?: string; cover?: Record<string, unknown> };
  createdAt: string;
  deleted: boolean;
}

export interface PinterestStore {
  boards: Map<string, PinBoard>;
  media: Map<string, PinMediaUpload>;
  pins: Map<string, PinRecord>;
  nextId: bigint;
  /**
   * Whether the app is allowlisted for PATCH /v5/pins/{pin_id}, a beta endpoint (`_config {pinUpdate}`,
   * default true); false answers every pin update with the beta refusal.
   */
  pinUpdate: boolean;
}

export function pinStore(state: SimulatorState): PinterestStore {
  let store = state.data.get('pinterest') as PinterestStore | undefined;
  if (!store) {
    store = { boards: new Map(), media: new Map(), pins: new Map(), nextId: 1_125_899_906_842_624n, pinUpdate: true };
    state.data.set('pinterest', store);
  }
  return store;
}

/** Increasing numeric ids, as Pinterest's (`^\d+$`). */
export function nextPinId(store: PinterestStore): string {
  store.nextId += 1n + BigInt(Math.floor(Math.random() * 1000));
  return store.nextId.toString();
}

/** The Pinterest user id of a sandbox login: numeric (`^\d+$` in the document), stable for the same login. */
export function pinterestUserId(user: OAuthUser): string {
  const n = BigInt(`0x${createHash('sha256').update(user.id).digest('hex').slice(0, 15)}`);
  return ((n % 900_000_000_000_000_000n) + 100_000_000_000_000_000n).toString();
}

/**
 * The boards a user owns. docs/sandbox.md: the consenting user owns two, with ids stable for the same login
 * (created the first time the user is seen).
 */
export function boardsOf(store: PinterestStore, user: OAuthUser): PinBoard[] {
  const ownerId = pinterestUserId(user);
  let own = [...store.boards.values()].filter((b) => b.ownerId === ownerId);
  if (own.length === 0) {
    const base = BigInt(ownerId) % 1_000_000_000_000n;
    const seeds: [string, string][] = [
      ['Product launches', 'What we ship'],
      ['Behind the scenes', 'How we work'],
    ];
    seeds.forEach(([name, description], i) => {
      const id = (549_000_000_000_000_000n + base * 10n + BigInt(i + 1)).toString();
      store.boards.set(id, {
        id,
        ownerId,
        name,
        description,
        privacy: 'PUBLIC',
        createdAt: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
      });
    });
    own = [...store.boards.values()].filter((b) => b.ownerId === ownerId);
  }
  return own;
}

/** Pinterest's error body (`Pinterest.Lib.Error`: `{code, message}`). */
export function pinError(reply: FastifyReply, status: number, code: number, message: string) {
  return reply.status(status).send({ code, message });
}

/** The user behind the bearer token, or null after sending Pinterest's 401 (`code` 2). */
export function pinUser(request: FastifyRequest, reply: FastifyReply, oauth: OAuthSim): OAuthUser | null {
  const user = oauth.userFor(request.headers.authorization);
  if (!user) {
    pinError(reply, 401, 2, 'Authentication failed.');
    return null;
  }
  return user;
}

/** The media's processing settled at `nowMs`: a video past its processing time is `succeeded` or `failed`. */
export function settleMedia(media: PinMediaUpload, nowMs: number): PinMediaUpload {
  if (media.status === 'processing' && media.readyAt !== null && nowMs >= media.readyAt)
    media.status = media.fails ? 'failed' : 'succeeded';
  return media;
}

/** Pinterest's answer to an injected fault; false for none or `ambiguous` (the caller acts, then hangs up). */
export function sendPinFault(reply: FastifyReply, fault: FaultKind | null, rejection: string): boolean {
  // Pinterest documents no code for these; 8 (rate limit) and 3 (service unavailable) are the simulator's.
  if (fault === 'rate_limited')
    pinError(
      reply,
      429,
      8,
      'This request exceeded a rate limit. This can happen if the client exceeds one of the published rate limits within a short time window.',
    );
  else if (fault === 'unavailable') pinError(reply, 503, 3, 'Service unavailable.');
  else if (fault === 'auth') pinError(reply, 401, 2, 'Authentication failed.');
  else if (fault === 'rejected') pinError(reply, 400, 1, rejection);
  else return false;
  return true;
}

export function boardJson(board: PinBoard, owner: string) {
  return {
    id: board.id,
    name: board.name,
    description: board.description,
    privacy: board.privacy,
    owner: { username: owner },
    created_at: board.createdAt,
    board_pins_modified_at: board.createdAt,
    collaborator_count: 0,
    follower_count: 0,
    pin_count: 0,
    is_ads_only: false,
  };
}

export function pinJson(pin: PinRecord, owner: string) {
  const media =
    pin.media.kind === 'video'
      ? {
          media_type: 'video',
          cover_image_url: String(pin.media.cover?.url ?? ''),
          duration: null,
          height: null,
          width: null,
        }
      : { media_type: 'image' };
  return {
    id: pin.id,
    created_at: pin.createdAt,
    link: pin.link,
    title: pin.title,
    description: pin.description,
    alt_text: pin.altText,
    dominant_color: '#6E7874',
    board_id: pin.boardId,
    board_section_id: null,
    board_owner: { username: owner },
    media,
    parent_pin_id: null,
    is_owner: true,
    is_standard: true,
    has_been_promoted: false,
    creative_type: pin.media.kind === 'video' ? 'VIDEO' : 'REGULAR',
  };
}
