import { PlatformError, type MediaRef, type PlatformIO, type ProcessingState } from '../types.js';
import { xRequest, type TwitterOptions } from './api.js';
import { readAll } from '../../lib/streams.js';

/** Bytes per APPEND segment (X accepts up to 5 MB; 1 MB keeps memory flat and retries cheap). */
const SEGMENT_BYTES = 1024 * 1024;
/** The wait suggested when X says a medium is processing but gives no `check_after_secs`. */
const DEFAULT_CHECK_AFTER_SECS = 5;

const IMAGE_TYPES = new Set([
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'image/bmp',
  'image/tiff',
  'image/pjpeg',
]);
const VIDEO_TYPES = new Set(['video/mp4', 'video/quicktime', 'video/webm', 'video/mp2t']);

/** Media rules of a post: up to 4 images, or 1 GIF, or 1 video. https://docs.x.com/x-api/media/quickstart/best-practices */
export function checkTweetMedia(media: MediaRef[]): void {
  if (media.length === 0) return;
  if (media.some((m) => m.type === 'document')) throw new PlatformError('rejected', 'X posts cannot carry documents');
  const videos = media.filter((m) => m.type === 'video' || m.type === 'gif').length;
  if (videos > 0 && media.length > 1)
    throw new PlatformError('rejected', 'an X post carries either up to 4 images or one video/GIF');
  if (media.length > 4) throw new PlatformError('rejected', 'an X post carries at most 4 images');
}

function mediaType(media: MediaRef, contentType: string): string {
  let type = (media.mimeType || contentType || '').split(';')[0].trim().toLowerCase();
  if (type === 'image/jpg') type = 'image/jpeg';
  const known = media.type === 'video' ? VIDEO_TYPES : IMAGE_TYPES;
  if (!known.has(type))
    throw new PlatformError('rejected', `X does not accept ${media.type} of type "${type || 'unknown'}"`);
  return type;
}

/** `tweet_*` for a post, `dm_*` for a direct message (X refuses a post's media in a message). */
function category(media: MediaRef, type: string, use: 'tweet' | 'dm'): string {
  if (media.type === 'video') return `${use}_video`;
  if (media.type === 'gif' || type === 'image/gif') return `${use}_gif`;
  return `${use}_image`;
}

/** Splits a stream into fixed-size segments without holding more than one segment. */
async function* segments(stream: NodeJS.ReadableStream, size: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    while (buf.length > 0) {
      const take = Math.min(size - pendingBytes, buf.length);
      pending.push(buf.subarray(0, take));
      pendingBytes += take;
      buf = buf.subarray(take);
      if (pendingBytes === size) {
        yield Buffer.concat(pending);
        pending = [];
        pendingBytes = 0;
      }
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending);
}

/** An uploaded medium: its id, and whether X is still processing it (videos, GIFs). */
export interface UploadedMedia {
  id: string;
  /** Milliseconds X suggests waiting before asking again; null when the medium is ready. */
  processingWaitMs: number | null;
}

/** X's `processing_info` of an upload (absent when there is nothing to process). */
interface XProcessingInfo {
  state?: 'pending' | 'in_progress' | 'failed' | 'succeeded';
  check_after_secs?: unknown;
  error?: { name?: string; message?: string };
}

/** X's `processing_info` as a processing state. https://docs.x.com/x-api/media/quickstart/media-upload-chunked */
function processingState(info: XProcessingInfo | null | undefined): ProcessingState {
  if (!info || info.state === 'succeeded') return { state: 'ready' };
  if (info.state === 'failed') {
    return {
      state: 'failed',
      reason: `X could not process the media: ${info.error?.message ?? 'processing failed'}`,
      platformCode: info.error?.name ?? null,
    };
  }
  const secs = Number(info.check_after_secs);
  return { state: 'processing', waitMs: (Number.isFinite(secs) && secs >= 0 ? secs : DEFAULT_CHECK_AFTER_SECS) * 1000 };
}

/**
 * Chunked upload: initialize -> append x N (multipart `media` + `segment_index`) -> finalize. A video or
 * GIF is then processed by X: the answer says so, and the caller asks `mediaStatus` until it is ready
 * (never waiting inside this call). https://docs.x.com/x-api/media/quickstart/media-upload-chunked
 */
export async function uploadMedia(
  opts: TwitterOptions,
  token: string,
  media: MediaRef,
  io: PlatformIO,
  use: 'tweet' | 'dm' = 'tweet',
): Promise<UploadedMedia> {
  const opened = await io.openMedia(media).catch((error: Error) => {
    throw new PlatformError('rejected', `media ${media.url} could not be read: ${error.message}`, { cause: error });
  });
  const type = mediaType(media, opened.contentType);
  // total_bytes is required up front; when the source did not say, read it whole (small files only).
  let stream = opened.stream;
  let size = opened.size ?? media.size ?? null;
  if (size == null) {
    const bytes = await readAll(stream);
    size = bytes.length;
    const { Readable } = await import('node:stream');
    stream = Readable.from([bytes]);
  }
  const init = await xRequest(io, {
    method: 'POST',
    url: `${opts.apiUrl}/2/media/upload/initialize`,
    token,
    json: { media_type: type, total_bytes: size, media_category: category(media, type, use) },
  });
  const id = String(init.body?.data?.id ?? '');
  if (!/^\d+$/.test(id))
    throw new PlatformError('unavailable', 'X media initialize returned no id', {
      endpoint: '/2/media/upload/initialize',
    });

  let index = 0;
  for await (const segment of segments(stream, SEGMENT_BYTES)) {
    if (io.signal?.aborted) throw new PlatformError('unavailable', 'publish cancelled during media upload');
    const form = new FormData();
    form.set('segment_index', String(index));
    form.set('media', new Blob([segment], { type: 'application/octet-stream' }), 'media');
    await xRequest(io, { method: 'POST', url: `${opts.apiUrl}/2/media/upload/${id}/append`, token, form });
    index++;
  }

  const fin = await xRequest(io, { method: 'POST', url: `${opts.apiUrl}/2/media/upload/${id}/finalize`, token });
  const state = processingState(fin.body?.data?.processing_info);
  if (state.state === 'failed')
    throw new PlatformError('rejected', state.reason, {
      endpoint: '/2/media/upload',
      platformCode: state.platformCode ?? null,
    });

  if (media.altText && media.type !== 'video') {
    await xRequest(io, {
      method: 'POST',
      url: `${opts.apiUrl}/2/media/metadata`,
      token,
      json: { id, metadata: { alt_text: { text: media.altText.slice(0, 1000) } } },
    });
  }
  return { id, processingWaitMs: state.state === 'processing' ? state.waitMs : null };
}

/** How X's processing of one uploaded medium is going: `GET /2/media/upload?command=STATUS`. */
export async function mediaStatus(
  opts: TwitterOptions,
  token: string,
  id: string,
  io: PlatformIO,
): Promise<ProcessingState> {
  const status = await xRequest(io, {
    method: 'GET',
    url: `${opts.apiUrl}/2/media/upload?command=STATUS&media_id=${encodeURIComponent(id)}`,
    token,
  });
  return processingState(status.body?.data?.processing_info);
}
