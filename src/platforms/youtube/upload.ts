import { classifyAnswer, networkFailure } from '../http.js';
import { parseJsonOrNull, readAtMost } from '../io.js';
import { PlatformError, type MediaRef, type PlatformIO } from '../types.js';
import { ytRequest, YOUTUBE_HTTP, type YouTubeOptions } from './api.js';

/*
 * The resumable upload (https://developers.google.com/youtube/v3/guides/using_resumable_upload_protocol):
 * a session (POST with the Video metadata, answered with its URI in `Location`), then the bytes in
 * chunks of a multiple of 256 KiB, each answered 308 with `Range: bytes=0-N` (what YouTube holds) until
 * the last, answered with the Video. A chunk that fails (5xx, connection lost) is followed by a status
 * query (`Content-Range: bytes * /total`, empty body) and the upload goes on from the offset YouTube
 * reports, which may be inside the chunk. A lost answer to the last chunk is resolved the same way: the
 * status query answers the Video. An expired session (404/410) made no video: a new one starts.
 * The file is read from its stream a chunk at a time; at most one chunk is held.
 */

export const UPLOAD_QUANTUM = 256 * 1024;
/** Chunk failures in a row (each followed by a status query) before the upload gives up. */
const MAX_CHUNK_FAILURES = 5;
/** Sessions started for one upload: an expired one is replaced once. */
const MAX_SESSIONS = 2;

class SessionExpired extends Error {}

/**
 * Byte ranges of a media item's stream, in increasing order; a range that starts before what is held
 * opens the stream again (a resume further back than the last chunk).
 */
class MediaReader {
  private iterator: AsyncIterator<Buffer> | null = null;
  /** Bytes held, starting at `heldStart`; the stream has been read up to heldStart + held length. */
  private held: Buffer[] = [];
  private heldStart = 0;
  private heldLength = 0;

  constructor(private readonly open: () => Promise<NodeJS.ReadableStream>) {}

  private async reopen(): Promise<void> {
    await this.close();
    const stream = await this.open();
    this.iterator = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    this.held = [];
    this.heldStart = 0;
    this.heldLength = 0;
  }

  /** Drops what comes before `start` (a straddling piece is cut). */
  private trim(start: number): void {
    while (this.held.length && this.heldStart < start) {
      const first = this.held[0];
      const cut = start - this.heldStart;
      if (cut >= first.length) {
        this.held.shift();
        this.heldStart += first.length;
        this.heldLength -= first.length;
      } else {
        this.held[0] = first.subarray(cut);
        this.heldStart += cut;
        this.heldLength -= cut;
      }
    }
  }

  /** Bytes [start, end) of the file. */
  async slice(start: number, end: number): Promise<Buffer> {
    if (!this.iterator || start < this.heldStart) await this.reopen();
    this.trim(start);
    while (this.heldStart + this.heldLength < end) {
      const next = await this.iterator!.next();
      if (next.done)
        throw new PlatformError(
          'rejected',
          `the video is shorter than its announced size (${this.heldStart + this.heldLength} bytes)`,
        );
      const piece = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
      this.held.push(piece);
      this.heldLength += piece.length;
      this.trim(start);
    }
    // One fresh buffer from `start`: the pieces it was copied from are let go, and a resume inside this
    // chunk re-slices it without reading again.
    const all = this.held.length === 1 ? this.held[0] : Buffer.concat(this.held, this.heldLength);
    this.held = [all];
    return all.subarray(0, end - start);
  }

  async close(): Promise<void> {
    await this.iterator?.return?.().catch(() => undefined);
    this.iterator = null;
  }
}

interface UploadTarget {
  resource: Record<string, unknown>;
  parts: string;
  media: MediaRef;
  token: string;
}

/** A Video resource as YouTube answers it (videos.insert, videos.list): the fields the adapter reads. */
export interface YtVideoJson {
  id: string;
  status?: { uploadStatus?: string; failureReason?: string; rejectionReason?: string };
  processingDetails?: { processingFailureReason?: string; processingProgress?: { timeLeftMs?: string } };
}

/** Uploads the video; returns the Video YouTube answered (`id`, `status.uploadStatus`...). */
export async function uploadVideo(opts: YouTubeOptions, io: PlatformIO, target: UploadTarget): Promise<YtVideoJson> {
  const first = await openVideo(io, target.media);
  const size = first.size;
  let pending: NodeJS.ReadableStream | null = first.stream;
  const reader = new MediaReader(async () => {
    if (pending) {
      const s = pending;
      pending = null;
      return s;
    }
    return (await openVideo(io, target.media)).stream;
  });
  try {
    for (let session = 1; ; session++) {
      const url = await startSession(opts, io, target, size, first.contentType);
      try {
        return await sendBytes(io, url, reader, size, opts.chunkBytes);
      } catch (error) {
        if (!(error instanceof SessionExpired) || session >= MAX_SESSIONS) {
          if (error instanceof SessionExpired)
            throw new PlatformError('unavailable', 'YouTube expired the upload session twice', {
              platformCode: 'session_expired',
            });
          throw error;
        }
        // The expired session made no video (nothing is published): a new one starts from byte 0.
      }
    }
  } finally {
    await reader.close();
  }
}

async function openVideo(io: PlatformIO, media: MediaRef) {
  const opened = await io.openMedia(media).catch((error: Error) => {
    throw new PlatformError('rejected', `media ${media.url} could not be read: ${error.message}`, { cause: error });
  });
  const size = opened.size ?? media.size ?? null;
  if (!size || size <= 0)
    throw new PlatformError(
      'rejected',
      `the size of ${media.url} is unknown: YouTube's resumable upload needs it first`,
    );
  const contentType =
    media.mimeType && media.mimeType.startsWith('video/')
      ? media.mimeType
      : opened.contentType.startsWith('video/')
        ? opened.contentType
        : 'video/*';
  return { stream: opened.stream, size, contentType };
}

/** POST .../videos?uploadType=resumable: the session URI. Nothing exists on YouTube yet, so a lost answer is `unavailable`. */
async function startSession(
  opts: YouTubeOptions,
  io: PlatformIO,
  t: UploadTarget,
  size: number,
  contentType: string,
): Promise<string> {
  if (io.signal?.aborted) throw new PlatformError('unavailable', 'publish cancelled before the upload started');
  const res = await ytRequest(io, {
    method: 'POST',
    url: `${opts.apiUrl}/upload/youtube/v3/videos?uploadType=resumable&part=${t.parts}`,
    token: t.token,
    json: t.resource,
    headers: { 'x-upload-content-length': String(size), 'x-upload-content-type': contentType },
  });
  const location = res.headers.get('location');
  if (!location)
    throw new PlatformError('unavailable', 'YouTube opened an upload session without a Location', {
      endpoint: '/upload/youtube/v3/videos',
      status: res.status,
    });
  return location;
}

type PutAnswer =
  | { kind: 'done'; video: YtVideoJson }
  | { kind: 'incomplete'; offset: number }
  | { kind: 'failed'; error: PlatformError };

/** One PUT to the session: a chunk, or the status query when `body` is null. */
async function put(
  io: PlatformIO,
  url: string,
  range: string,
  body: Buffer | null,
  lastChunk: boolean,
): Promise<PutAnswer> {
  const endpoint = '/upload/youtube/v3/videos (session)';
  let res: Response;
  let raw: string;
  try {
    res = await io.fetch(url, {
      method: 'PUT',
      headers: { 'content-range': range, ...(body ? {} : { 'content-length': '0' }) },
      body: body ?? undefined,
      // NOTE: 308 here is "Resume Incomplete", not a redirect.
      redirect: 'manual',
      ...(io.signal ? { signal: io.signal } : {}),
    });
    raw = (await readAtMost(res, 1024 * 1024)).bytes.toString('utf8');
  } catch (error) {
    // The last chunk may have made the video: the caller's status query tells.
    return { kind: 'failed', error: networkFailure(error, { endpoint, creates: lastChunk, platform: 'YouTube' }) };
  }
  if (res.status === 200 || res.status === 201) {
    const video = parseJsonOrNull(raw) as YtVideoJson | null;
    if (!video?.id)
      return {
        kind: 'failed',
        error: new PlatformError('ambiguous', 'YouTube ended the upload without a video id', {
          status: res.status,
          endpoint,
          raw: raw.slice(0, 2000),
        }),
      };
    return { kind: 'done', video };
  }
  if (res.status === 308) {
    const m = /bytes=0-(\d+)/.exec(res.headers.get('range') ?? '');
    return { kind: 'incomplete', offset: m ? Number(m[1]) + 1 : 0 };
  }
  if (res.status === 404 || res.status === 410) throw new SessionExpired();
  const error = classifyAnswer(YOUTUBE_HTTP, {
    status: res.status,
    headers: res.headers,
    body: parseJsonOrNull(raw),
    raw,
    endpoint,
    now: io.now(),
    creates: lastChunk,
  });
  return { kind: 'failed', error };
}

async function sendBytes(
  io: PlatformIO,
  url: string,
  reader: MediaReader,
  size: number,
  chunkBytes: number,
): Promise<YtVideoJson> {
  let offset = 0;
  let failures = 0;
  let lastSent = false;
  for (;;) {
    if (io.signal?.aborted)
      throw new PlatformError(lastSent ? 'ambiguous' : 'unavailable', 'publish cancelled during the upload');
    const end = Math.min(size, offset + chunkBytes);
    const bytes = await reader.slice(offset, end);
    lastSent = end === size;
    const answer = await put(io, url, `bytes ${offset}-${end - 1}/${size}`, bytes, lastSent);
    if (answer.kind === 'done') return answer.video;
    if (answer.kind === 'incomplete') {
      offset = answer.offset;
      failures = 0;
      continue;
    }
    // Only server trouble and lost connections are resumed; a refusal (4xx, quota) ends the upload.
    const { error } = answer;
    if (error.kind !== 'unavailable' && error.kind !== 'ambiguous') throw error;
    if (++failures > MAX_CHUNK_FAILURES)
      throw lastSent && error.kind === 'ambiguous'
        ? error
        : new PlatformError('unavailable', error.message, { cause: error });
    const status = await statusQuery(io, url, size);
    if (status.kind === 'done') return status.video;
    if (status.kind === 'failed') {
      // Nobody can tell whether the last chunk made the video: never re-sent blindly.
      if (lastSent && error.kind === 'ambiguous')
        throw new PlatformError(
          'ambiguous',
          `the answer to the last chunk was lost and YouTube's status query failed: ${status.error.message}`,
          { cause: status.error },
        );
      throw status.error;
    }
    offset = status.offset;
  }
}

/** The status query, asked again a few times while YouTube is unreachable. */
async function statusQuery(io: PlatformIO, url: string, size: number): Promise<PutAnswer> {
  let answer: PutAnswer = { kind: 'failed', error: new PlatformError('unavailable', 'YouTube upload failed') };
  for (let n = 0; n < 3; n++) {
    if (n > 0) await new Promise((r) => setTimeout(r, 250 * n));
    answer = await put(io, url, `bytes */${size}`, null, false);
    if (answer.kind !== 'failed' || (answer.error.kind !== 'unavailable' && answer.error.kind !== 'ambiguous'))
      return answer;
  }
  return answer;
}
