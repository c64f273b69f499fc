import type { FastifyReply } from 'fastify';
import { randomBytes } from 'node:crypto';
import type { SimulatorState } from '../types.js';

/*
 * What the TikTok simulator remembers (in the framework's `data`, so `_reset` clears it): the creators'
 * posting options (what creator_info/query answers, changed through `POST /_config {creator}`) and each
 * publish (a video init or a photo content init) with its upload and processing.
 */

/** The creator settings creator_info/query reports. */
export interface CreatorOptions {
  privacy_level_options: string[];
  comment_disabled: boolean;
  duet_disabled: boolean;
  stitch_disabled: boolean;
  max_video_post_duration_sec: number;
}

export const DEFAULT_CREATOR: CreatorOptions = {
  privacy_level_options: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'],
  comment_disabled: false,
  duet_disabled: false,
  stitch_disabled: false,
  max_video_post_duration_sec: 600,
};

export type PublishStatus =
  | 'PROCESSING_UPLOAD'
  | 'PROCESSING_DOWNLOAD'
  | 'SEND_TO_USER_INBOX'
  | 'PUBLISH_COMPLETE'
  | 'FAILED';

export interface TtPublish {
  publishId: string;
  openId: string;
  kind: 'video' | 'photo';
  /** DIRECT_POST, or MEDIA_UPLOAD (the creator finishes it from the inbox). */
  mode: 'DIRECT_POST' | 'MEDIA_UPLOAD';
  source: 'FILE_UPLOAD' | 'PULL_FROM_URL';
  postInfo: Record<string, unknown>;
  /** FILE_UPLOAD: the sizes announced at init and the bytes received so far, in order. */
  upload?: {
    videoSize: number;
    chunkSize: number;
    totalChunks: number;
    received: number;
    chunks: number;
    parts: Buffer[];
    mimeType: string | null;
  };
  /** Bytes of the video or of each photo, once all arrived (upload complete or pulled). */
  media: { url?: string; bytes: Buffer; mimeType: string | null }[];
  /** When the media were all there (processing starts), ms. */
  arrivedAt: number | null;
  /** The failure decided when processing started (a `processing` fault, a duration or format check). */
  failReason: string | null;
  /** Set once the post is public (PUBLISH_COMPLETE). */
  postId: string | null;
  createdAt: number;
  settled: boolean;
  /** An ambiguous `publish` fault on a FILE_UPLOAD: the answer to the last chunk is lost. */
  loseLastAnswer?: boolean;
}

export interface TtStore {
  /** Options every creator has, unless set for that creator (`creators`). */
  creator: CreatorOptions;
  creators: Map<string, CreatorOptions>;
  publishes: Map<string, TtPublish>;
  nextPostId: bigint;
  /**
   * How long TikTok's moderation holds a direct post after processing ended, ms, before the post is
   * public and status/fetch gives its id (`POST /_config {moderationMs}`); null holds it until changed.
   * Every creator's, unless set for that creator (`moderationOf`).
   */
  moderationMs: number | null;
  moderationOf: Map<string, number | null>;
}

export function ttStore(state: SimulatorState): TtStore {
  let store = state.data.get('tiktok') as TtStore | undefined;
  if (!store) {
    store = {
      creator: structuredClone(DEFAULT_CREATOR),
      creators: new Map(),
      publishes: new Map(),
      nextPostId: 7_300_000_000_000_000_000n,
      moderationMs: 0,
      moderationOf: new Map(),
    };
    state.data.set('tiktok', store);
  }
  return store;
}

export function creatorOf(store: TtStore, openId: string): CreatorOptions {
  return store.creators.get(openId) ?? store.creator;
}

export function moderationOf(store: TtStore, openId: string): number | null {
  return store.moderationOf.has(openId) ? store.moderationOf.get(openId)! : store.moderationMs;
}

export const logId = () => `2026${randomBytes(12).toString('hex').toUpperCase()}`;

/**
 * Every Content Posting API answer is `{data, error: {code, message, log_id}}`; `code: "ok"` on success.
 * https://developers.tiktok.com/doc/tiktok-api-v2-error-handling
 */
export function ttOk(data: Record<string, unknown>) {
  return { data, error: { code: 'ok', message: '', log_id: logId() } };
}

export function ttError(reply: FastifyReply, status: number, code: string, message: string) {
  return reply.status(status).send({ data: {}, error: { code, message, log_id: logId() } });
}
