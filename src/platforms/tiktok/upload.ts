import { networkFailure, classifyAnswer } from '../http.js';
import { parseJsonOrNull, readAtMost } from '../io.js';
import { PlatformError, type MediaRef, type PlatformIO } from '../types.js';
import { TIKTOK_HTTP } from './api.js';

/*
 * FILE_UPLOAD (https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide): the video's
 * size and chunking are announced at init, then the bytes go to `upload_url` in order, one PUT per chunk
 * with `Content-Range: bytes first-last/total`, answered 206 until the last (201). Chunks are 5 to 64 MB
 * and `total_chunk_count` is the size divided by the chunk size rounded down, so the last chunk carries
 * the rest (under 128 MB); a video under 5 MB goes whole. The file is streamed from its source, one chunk
 * held at a time. TikTok offers no resume: a failed chunk fails the attempt (the orphaned upload never
 * becomes a post), and the next attempt starts over with a new init.
 */

const MB = 1024 * 1024;
export const MIN_CHUNK = 5 * MB;
export const MAX_CHUNK = 64 * MB;
const MAX_CHUNKS = 1000;

export interface ChunkPlan {
  videoSize: number;
  chunkSize: number;
  totalChunks: number;
}

/** The chunking of a video of `size` bytes with chunks of about `wanted` bytes. */
export function chunkPlan(size: number, wanted: number): ChunkPlan {
  if (size < MIN_CHUNK) return { videoSize: size, chunkSize: size, totalChunks: 1 };
  let chunk = Math.min(MAX_CHUNK, Math.max(MIN_CHUNK, wanted, Math.ceil(size / MAX_CHUNKS)));
  if (chunk > size) chunk = size;
  return { videoSize: size, chunkSize: chunk, totalChunks: Math.floor(size / chunk) };
}

/** Content-Type of the chunks: TikTok takes MP4, QuickTime and WebM. */
export function chunkType(media: MediaRef, opened: string): string {
  const known = ['video/mp4', 'video/quicktime', 'video/webm'];
  const given = [media.mimeType ?? '', opened].map((t) => t.split(';')[0].trim().toLowerCase());
  return given.find((t) => known.includes(t)) ?? 'video/mp4';
}

/** Reads exactly `n` bytes from the iterator (fewer only at the end of the stream), keeping the overflow. */
async function take(it: AsyncIterator<Buffer>, carry: { rest: Buffer }, n: number): Promise<Buffer> {
  const parts: Buffer[] = carry.rest.length ? [carry.rest] : [];
  let have = carry.rest.length;
  carry.rest = Buffer.alloc(0);
  while (have < n) {
    const next = await it.next();
    if (next.done) break;
    const piece = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    parts.push(piece);
    have += piece.length;
  }
  const all = parts.length === 1 ? parts[0] : Buffer.concat(parts, have);
  if (all.length > n) carry.rest = all.subarray(n);
  return all.subarray(0, n);
}

/**
 * Sends the video's bytes to `uploadUrl`. Returns when TikTok answered the last chunk; a lost answer to
 * the last chunk is the caller's to settle (`lastAnswerLost`), since TikTok may have the whole video.
 */
export async function sendChunks(
  io: PlatformIO,
  uploadUrl: string,
  stream: NodeJS.ReadableStream,
  plan: ChunkPlan,
  contentType: string,
): Promise<{ lastAnswerLost: PlatformError | null }> {
  const endpoint = '/upload (upload_url)';
  const it = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const carry = { rest: Buffer.alloc(0) };
  try {
    let offset = 0;
    for (let i = 0; i < plan.totalChunks; i++) {
      if (io.signal?.aborted) throw new PlatformError('unavailable', 'publish cancelled during the upload');
      const last = i === plan.totalChunks - 1;
      const length = last ? plan.videoSize - offset : plan.chunkSize;
      const bytes = await take(it, carry, length);
      if (bytes.length < length)
        throw new PlatformError(
          'rejected',
          `the video is shorter than its announced size (${offset + bytes.length} of ${plan.videoSize} bytes)`,
        );
      let res: Response;
      let raw: string;
      try {
        res = await io.fetch(uploadUrl, {
          method: 'PUT',
          headers: {
            'content-type': contentType,
            'content-length': String(length),
            'content-range': `bytes ${offset}-${offset + length - 1}/${plan.videoSize}`,
          },
          body: bytes,
          ...(io.signal ? { signal: io.signal } : {}),
        });
        raw = (await readAtMost(res, 64 * 1024)).bytes.toString('utf8');
      } catch (error) {
        const failure = networkFailure(error, { endpoint, creates: last, platform: 'TikTok' });
        if (last && failure.kind === 'ambiguous') return { lastAnswerLost: failure };
        throw failure;
      }
      if (res.status !== 206 && res.status !== 201 && res.status !== 200) {
        throw classifyAnswer(TIKTOK_HTTP, {
          status: res.status,
          headers: res.headers,
          body: parseJsonOrNull(raw),
          raw,
          endpoint,
          now: io.now(),
          creates: false,
        });
      }
      offset += length;
    }
    return { lastAnswerLost: null };
  } finally {
    await it.return?.().catch(() => undefined);
  }
}
