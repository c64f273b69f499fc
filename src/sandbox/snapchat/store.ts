import { createHash, randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { FaultKind } from '../faults.js';
import type { OAuthUser } from '../oauth.js';
import type { SimulatorState } from '../types.js';

/** A Public Profile the consenting user manages (docs/sandbox.md: two per login, ids stable for the same login). */
export interface SnapProfile {
  id: string;
  organizationId: string;
  displayName: string;
  snapUserName: string;
  subscriberCount: number;
  owner: string;
}

export type MediaStatus = 'PENDING_UPLOAD' | 'PROCESSING' | 'READY' | 'FAILED';

/** A media container: created with its key and IV, filled part by part, finalized, then processed. */
export interface SnapMedia {
  id: string;
  profileId: string;
  type: 'VIDEO' | 'IMAGE';
  name: string;
  key: Buffer;
  iv: Buffer;
  /** Encrypted parts by part_number, as received. */
  parts: Map<number, Buffer>;
  createdAt: number;
  finalizedAt: number | null;
  /** What FINALIZE decrypted and read from the file. */
  file: {
    size: number;
    mimeType: string;
    sha256: string;
    durationSec: number | null;
    width: number | null;
    height: number | null;
  } | null;
  /** Set at FINALIZE when a `processing` fault was armed: processing ends in this error. */
  failReason: string | null;
  /** The post made with it: a media is posted once. */
  postedAs: string | null;
}

export interface SnapStore {
  media: Map<string, SnapMedia>;
}

export function snapStore(state: SimulatorState): SnapStore {
  let store = state.data.get('snapchat') as SnapStore | undefined;
  if (!store) {
    store = { media: new Map() };
    state.data.set('snapchat', store);
  }
  return store;
}

/** A UUID derived from a seed, so a login's organization and profiles keep their ids. */
function stableUuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export const organizationOf = (user: OAuthUser) => stableUuid(`org:${user.id}`);

export function profilesOf(user: OAuthUser): SnapProfile[] {
  const organizationId = organizationOf(user);
  return [
    {
      id: stableUuid(`profile:${user.id}:1`),
      organizationId,
      displayName: user.name,
      snapUserName: user.username.toLowerCase(),
      subscriberCount: 15000,
      owner: user.id,
    },
    {
      id: stableUuid(`profile:${user.id}:2`),
      organizationId,
      displayName: `${user.name} Studio`,
      snapUserName: `${user.username.toLowerCase()}_studio`,
      subscriberCount: 5000,
      owner: user.id,
    },
  ];
}

/** The Public Profile entity (https://developers.snap.com/api/marketing-api/Public-Profile-API/Profiles). */
export function profileEntity(p: SnapProfile): Record<string, unknown> {
  const logo = `https://cf-st.sc-cdn.net/aps/bolt/${p.id}`;
  return {
    id: p.id,
    organization_id: p.organizationId,
    display_name: p.displayName,
    snap_user_name: p.snapUserName,
    profile_type: 'PUBLIC_PROFILE',
    profile_tier: 'TIER_PUBLIC',
    internal_profile_category: 'BUSINESS',
    category: 'CATEGORY_V3_BUSINESS_GROUP',
    // NOTE: the Profiles page lists subscriber_count as a string.
    subscriber_count: String(p.subscriberCount),
    logo_urls: {
      original_logo_url: `${logo}/original.png`,
      discover_feed_logo_url: `${logo}/72.png`,
      mega_profile_logo_url: `${logo}/90.png`,
      manage_profile_logo_url: `${logo}/640.png`,
    },
    share_authorized_data_with_api_partners: false,
  };
}

/** A successful answer: `request_status` and `request_id` beside the payload, as every Marketing API answer. */
export const snapOk = (payload: Record<string, unknown>) => ({
  request_status: 'SUCCESS',
  request_id: randomUUID(),
  ...payload,
});

/**
 * The Marketing API's error shape: `{request_status: "ERROR", request_id, debug_message, display_message,
 * error_code}` (https://developers.snap.com/api/marketing-api/Ads-API/errors).
 */
export function snapError(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply.status(status).send({
    request_status: 'ERROR',
    request_id: randomUUID(),
    debug_message: message,
    display_message: message,
    error_code: code,
  });
}

/** An injected fault in Snap's words; false for none or `ambiguous` (the caller acts, then hangs up). */
export function sendFault(
  reply: FastifyReply,
  fault: FaultKind | null,
  rejection: { code: string; message: string },
): boolean {
  if (fault === 'rate_limited') snapError(reply, 429, 'E1302', 'Too many requests: rate limit exceeded');
  else if (fault === 'unavailable') snapError(reply, 503, 'E9001', 'Service temporarily unavailable');
  else if (fault === 'auth') snapError(reply, 401, 'E3003', 'Unauthorized: the access token is invalid or expired');
  else if (fault === 'rejected') snapError(reply, 400, rejection.code, rejection.message);
  else return false;
  return true;
}

/** The media's status at `now`: PROCESSING lasts `processingMs` after FINALIZE. */
export function statusOf(media: SnapMedia, now: number, processingMs: number): MediaStatus {
  if (media.finalizedAt === null) return 'PENDING_UPLOAD';
  if (now < media.finalizedAt + processingMs) return 'PROCESSING';
  return media.failReason ? 'FAILED' : 'READY';
}
