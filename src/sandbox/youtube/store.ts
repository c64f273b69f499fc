import type { SandboxMetrics } from '../metrics.js';
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthSim, OAuthUser } from '../oauth.js';
import type { FaultKind } from '../faults.js';
import type { SimulatorState } from '../types.js';
import { checkSchema, youtubeDiscovery } from './discovery.js';
import { videoDurationSeconds } from './analytics-reports.js';

/** A consenting user's one channel (docs/sandbox.md: one YouTube channel), with ids stable for the same login. */
export interface YtChannel {
  id: string;
  title: string;
  customUrl: string;
  /** The channel's uploads playlist (`UU` + the channel id's tail), as YouTube derives it. */
  uploads: string;
  owner: string;
}

/** A video's snippet: the fields the simulator reads, the others kept as sent. */
export interface YtSnippet {
  title?: string;
  description?: string;
  tags?: string[];
  categoryId?: string;
  [key: string]: unknown;
}

/** A video's status: the fields the simulator reads or sets, the others kept as sent. */
interface YtStatus {
  uploadStatus?: string;
  privacyStatus?: string;
  publishAt?: string;
  license?: string;
  embeddable?: boolean;
  publicStatsViewable?: boolean;
  selfDeclaredMadeForKids?: boolean;
  containsSyntheticMedia?: boolean;
  [key: string]: unknown;
}

/** A videos.insert resource, checked against the Video schema (checkVideoMetadata) before it is kept. */
export interface YtVideoResource {
  snippet?: YtSnippet;
  status?: YtStatus;
  [key: string]: unknown;
}

export interface YtVideo {
  id: string;
  channelId: string;
  snippet: YtSnippet;
  status: YtStatus;
  size: number;
  mimeType: string;
  /** When processing ends (ms) and whether it ends in a failure (`_faults {op: 'processing'}`). */
  readyAt: number;
  fails: boolean;
  createdAt: number;
  deleted: boolean;
  thumbnail: { size: number; mimeType: string } | null;
}

/** A resumable upload session: the metadata sent first, then the bytes in ranges. */
export interface YtSession {
  id: string;
  channel: YtChannel;
  resource: YtVideoResource;
  parts: string[];
  total: number;
  mimeType: string;
  /** Bytes stored so far (always a prefix of the file). */
  received: number;
  /** Every byte range the simulator received, as sent, in order (`_inspect` shows them on the video). */
  ranges: { first: number; last: number }[];
  /** 404 (expired) or 410 (gone) once `POST /_expire-sessions` ran. */
  expired: 404 | 410 | null;
  /** The `publish` fault taken when the session began: `ambiguous` loses the answer to the last chunk. */
  loseAnswer: boolean;
  videoId: string | null;
  /** When the first byte-carrying PUT arrived (simulator clock, ms): with the video's creation, how long the bytes took. */
  bytesStartedAt: number | null;
}

/** A comment under a video: top-level (a thread) or a reply (`parentId`). */
export interface YtComment {
  id: string;
  videoId: string;
  parentId: string | null;
  text: string;
  authorChannelId: string;
  authorName: string;
  publishedAt: number;
  moderationStatus: 'published' | 'heldForReview' | 'rejected';
  deleted: boolean;
}

export interface YtStore {
  videos: Map<string, YtVideo>;
  sessions: Map<string, YtSession>;
  comments: YtComment[];
}

export function ytStore(state: SimulatorState): YtStore {
  let store = state.data.get('youtube') as YtStore | undefined;
  if (!store) {
    store = { videos: new Map(), sessions: new Map(), comments: [] };
    state.data.set('youtube', store);
  }
  return store;
}

export function channelOf(user: OAuthUser): YtChannel {
  const tail = createHash('sha256').update(user.id).digest('base64url').slice(0, 22);
  return {
    id: `UC${tail}`,
    title: user.name,
    customUrl: `@${user.username.toLowerCase()}`,
    uploads: `UU${tail}`,
    owner: user.id,
  };
}

export const newVideoId = () => randomBytes(8).toString('base64url').slice(0, 11);
export const newUploadId = () => `ADPycd${randomBytes(24).toString('base64url')}`;

const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  410: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/**
 * Google's error shape: `{error: {code, message, errors: [{message, domain, reason, location?, locationType?}], status}}`.
 * https://developers.google.com/youtube/v3/docs/errors
 */
export function ytError(
  reply: FastifyReply,
  code: number,
  reason: string,
  message: string,
  opts: { domain?: string; location?: string; locationType?: string } = {},
): FastifyReply {
  const item = {
    message,
    domain: opts.domain ?? 'youtube.api',
    reason,
    ...(opts.location ? { location: opts.location, locationType: opts.locationType ?? 'parameter' } : {}),
  };
  return reply.status(code).send({ error: { code, message, errors: [item], status: STATUS[code] ?? 'UNKNOWN' } });
}

/**
 * The channel behind the bearer token, or a 401 `authError` answered. With `method` (`[resource, method]`
 * of the discovery document), the token must also carry one of the scopes the document lists for it,
 * else Google's 403 insufficientPermissions.
 */
export function channelFor(
  request: FastifyRequest,
  reply: FastifyReply,
  oauth: OAuthSim,
  method?: [string, string],
): YtChannel | null {
  const user = oauth.userFor(request.headers.authorization);
  if (user && method) {
    const needs = youtubeDiscovery().resources?.[method[0]]?.methods?.[method[1]]?.scopes ?? [];
    const granted = oauth.scopesFor(request.headers.authorization) ?? [];
    if (needs.length && !needs.some((s) => granted.includes(s))) {
      reply.status(403).send({
        error: {
          code: 403,
          message: 'Request had insufficient authentication scopes.',
          errors: [{ message: 'Insufficient Permission', domain: 'global', reason: 'insufficientPermissions' }],
          status: 'PERMISSION_DENIED',
        },
      });
      return null;
    }
  }
  if (user) return channelOf(user);
  ytError(
    reply,
    401,
    'authError',
    'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
    {
      domain: 'global',
      location: 'Authorization',
      locationType: 'header',
    },
  );
  return null;
}

/**
 * Answers an injected fault as YouTube does; false for none or `ambiguous` (the caller acts, then hangs up).
 * `rate_limited` is the daily quota (403 quotaExceeded, which resets at midnight Pacific time).
 */
export function sendFault(
  reply: FastifyReply,
  fault: FaultKind | null,
  rejection: { reason: string; message: string },
): boolean {
  if (fault === 'rate_limited') {
    ytError(
      reply,
      403,
      'quotaExceeded',
      'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
      { domain: 'youtube.quota' },
    );
  } else if (fault === 'unavailable') ytError(reply, 503, 'backendError', 'Backend Error', { domain: 'global' });
  else if (fault === 'auth') {
    ytError(reply, 401, 'authError', 'Invalid Credentials', {
      domain: 'global',
      location: 'Authorization',
      locationType: 'header',
    });
  } else if (fault === 'rejected')
    ytError(reply, 400, rejection.reason, rejection.message, { domain: 'youtube.video' });
  else return false;
  return true;
}

/** Processing state of a video at `now`: uploaded (processing), processed, or failed. */
export function settle(video: YtVideo, now: number): void {
  if (video.status.uploadStatus !== 'uploaded' || now < video.readyAt) return;
  if (video.fails) {
    video.status.uploadStatus = 'failed';
    video.status.failureReason = 'codec';
  } else video.status.uploadStatus = 'processed';
}

/** The Video resource with the parts asked for, checked against the discovery document before it goes out. */
/** `stats`: what the insights report for this video now (sandbox/metrics.ts), for `part=statistics`. */
export function videoResource(
  video: YtVideo,
  parts: string[],
  now: number,
  stats?: SandboxMetrics,
): Record<string, unknown> {
  settle(video, now);
  const out: Record<string, unknown> = {
    kind: 'youtube#video',
    etag: etag(video.id + video.status.uploadStatus),
    id: video.id,
  };
  if (parts.includes('snippet')) {
    out.snippet = {
      publishedAt: new Date(video.createdAt).toISOString(),
      channelId: video.channelId,
      channelTitle: video.snippet.channelTitle,
      title: video.snippet.title,
      description: video.snippet.description ?? '',
      thumbnails: thumbnails(video.id),
      ...(video.snippet.tags ? { tags: video.snippet.tags } : {}),
      categoryId: video.snippet.categoryId ?? '22',
      liveBroadcastContent: 'none',
      localized: { title: video.snippet.title, description: video.snippet.description ?? '' },
    };
  }
  if (parts.includes('contentDetails')) {
    // https://developers.google.com/youtube/v3/docs/videos#contentDetails.duration: ISO 8601 (PT#M#S).
    const seconds = videoDurationSeconds(video.id);
    out.contentDetails = {
      duration: `PT${Math.floor(seconds / 60)}M${seconds % 60}S`,
      dimension: '2d',
      definition: 'hd',
      caption: 'false',
      licensedContent: false,
      contentRating: {},
      projection: 'rectangular',
    };
  }
  if (parts.includes('status')) {
    const { selfDeclaredMadeForKids, ...status } = video.status;
    out.status = {
      ...status,
      madeForKids: selfDeclaredMadeForKids === true,
      selfDeclaredMadeForKids: selfDeclaredMadeForKids === true,
    };
  }
  if (parts.includes('processingDetails')) {
    const s = video.status.uploadStatus;
    out.processingDetails =
      s === 'uploaded'
        ? {
            processingStatus: 'processing',
            processingProgress: {
              partsTotal: '1000',
              partsProcessed: String(
                Math.min(
                  999,
                  Math.floor((1 - (video.readyAt - now) / Math.max(1, video.readyAt - video.createdAt)) * 1000),
                ),
              ),
              timeLeftMs: String(Math.max(0, video.readyAt - now)),
            },
          }
        : s === 'failed'
          ? { processingStatus: 'failed', processingFailureReason: 'transcodeFailed' }
          : { processingStatus: 'succeeded', thumbnailsAvailability: 'available' };
  }
  if (parts.includes('statistics') && stats) {
    // https://developers.google.com/youtube/v3/docs/videos#statistics: counts as uint64 strings; dislikes are private since 2021.
    out.statistics = {
      viewCount: String(stats.views),
      likeCount: String(stats.likes),
      favoriteCount: '0',
      commentCount: String(stats.comments),
    };
  }
  return checked('Video', out);
}

export function thumbnails(videoId: string) {
  return {
    default: { url: `https://i.ytimg.com/vi/${videoId}/default.jpg`, width: 120, height: 90 },
    high: { url: `https://i.ytimg.com/vi/${videoId}/hqdefault.jpg`, width: 480, height: 360 },
  };
}

export const etag = (s: string) => createHash('sha1').update(s).digest('base64url').slice(0, 27);

/**
 * A response the simulator is about to send, held to the discovery document: a field the schema does not
 * define is a bug of the simulator, so it throws (the test sees a 500) rather than teaching a client a
 * shape YouTube never sends.
 */
export function checked<T>(schema: string, body: T): T {
  const problems = checkSchema(schema, body, 'response');
  if (problems.length)
    throw new Error(
      `the YouTube simulator's ${schema} answer breaks the discovery document: ${problems.map((p) => p.message).join('; ')}`,
    );
  return body;
}
