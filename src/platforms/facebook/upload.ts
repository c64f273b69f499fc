import { answerFields, classifyAnswer, platformRequest, type PlatformHttp } from '../http.js';
import { readAtMost } from '../io.js';
import { PlatformError, type MediaRef, type PlatformIO } from '../types.js';
import { FACEBOOK_HTTP, graph, graphBase, type FacebookOptions } from './api.js';

/*
 * Video bytes to Facebook, never held whole: the stream is read one chunk at a time.
 * - Page videos take the Resumable Upload API (https://developers.facebook.com/docs/graph-api/guides/upload):
 *   a session at `/{app-id}/uploads`, the bytes to `/upload:<session>` with `file_offset`, the handle `h`.
 *   A chunk that fails transiently is resent from the offset the session reports (`GET /upload:<session>`).
 * - Reels and video stories take rupload (the `upload_url` of their start phase), with `offset` and
 *   `file_size` headers (https://developers.facebook.com/docs/video-api/guides/reels-publishing).
 */

/** rupload answers `{debug_info: {type, message, retriable}}` rather than Graph's error. */
const RUPLOAD_HTTP: PlatformHttp = {
  name: 'Facebook rupload',
  describe: ({ body, status }) => ({
    message: body?.debug_info?.message ?? body?.error?.message ?? `rupload answered HTTP ${status}`,
    platformCode: body?.debug_info?.type ?? null,
  }),
  classify: (answer, described) => {
    if (answer.body?.error)
      return (
        FACEBOOK_HTTP.classify!(answer, FACEBOOK_HTTP.describe(answer)) ??
        classifyAnswer({ ...FACEBOOK_HTTP, classify: undefined }, answer)
      );
    if (answer.body?.debug_info?.retriable === true && answer.status !== 429)
      return new PlatformError('unavailable', described.message, answerFields(answer, described.platformCode));
    return null;
  },
};

interface Opened {
  next(): Promise<Buffer | null>;
  size: number;
  type: string;
}

/** The media as chunks of `chunkBytes`, and its size (read whole, up to 1 GiB, when the source does not say). */
async function openChunks(io: PlatformIO, media: MediaRef, chunkBytes: number): Promise<Opened> {
  const opened = await io.openMedia(media);
  const type = opened.contentType.startsWith('video/') ? opened.contentType : 'video/mp4';
  if (opened.size === null) {
    const whole = await readAtMost(new Response(opened.stream as AsyncIterable<Uint8Array>), 1024 * 1024 * 1024);
    if (whole.truncated)
      throw new PlatformError('rejected', 'the video is over 1 GiB and its size is unknown', {
        platformCode: 'media_size_unknown',
      });
    let at = 0;
    return {
      size: whole.bytes.length,
      type,
      next: async () => (at >= whole.bytes.length ? null : whole.bytes.subarray(at, (at += chunkBytes))),
    };
  }
  const iterator = (opened.stream as AsyncIterable<Buffer | Uint8Array | string>)[Symbol.asyncIterator]();
  let pending = Buffer.alloc(0);
  let done = false;
  return {
    size: opened.size,
    type,
    async next() {
      while (!done && pending.length < chunkBytes) {
        const r = await iterator.next();
        if (r.done) done = true;
        else pending = Buffer.concat([pending, Buffer.from(r.value as Uint8Array)]);
      }
      if (!pending.length) return null;
      const chunk = pending.subarray(0, chunkBytes);
      pending = pending.subarray(chunk.length);
      return chunk;
    },
  };
}

/** The Resumable Upload API: the file handle `h` for `fbuploader_video_file_chunk`. */
export async function uploadResumable(
  opts: FacebookOptions,
  io: PlatformIO,
  media: MediaRef,
  token: string,
): Promise<string> {
  const file = await openChunks(io, media, opts.chunkBytes);
  const q = new URLSearchParams({
    file_name: media.filename ?? 'video.mp4',
    file_length: String(file.size),
    file_type: file.type,
  });
  const session = await graph(io, { method: 'POST', url: `${graphBase(opts)}/${opts.appId}/uploads?${q}`, token });
  const sessionId = String(session.body?.id ?? '');
  if (!sessionId.startsWith('upload:'))
    throw new PlatformError('unavailable', 'Facebook opened no upload session', { raw: session.raw.slice(0, 2000) });
  let offset = 0;
  for (let chunk = await file.next(); chunk; chunk = await file.next()) {
    const start = offset;
    for (let attempt = 0; ; attempt++) {
      const skip = offset - start;
      try {
        const res = await graph(io, {
          method: 'POST',
          url: `${graphBase(opts)}/${sessionId}`,
          token,
          headers: { file_offset: String(offset), 'content-type': 'application/octet-stream' },
          body: chunk.subarray(skip),
        });
        if (typeof res.body?.h === 'string') return res.body.h;
        offset = Number(res.body?.file_offset ?? start + chunk.length);
        break;
      } catch (error) {
        // A transient failure: ask the session how far it got and resend only the rest of this chunk.
        if (!(error instanceof PlatformError) || error.kind !== 'unavailable' || attempt >= 2) throw error;
        const status = await graph(io, { method: 'GET', url: `${graphBase(opts)}/${sessionId}`, token });
        offset = Number(status.body?.file_offset ?? start);
        if (offset < start || offset > start + chunk.length) throw error;
        if (offset === start + chunk.length) break;
      }
    }
  }
  throw new PlatformError('unavailable', 'Facebook took every byte of the video but gave no file handle', {
    endpoint: '/upload',
  });
}

/** rupload: every byte to the `upload_url` of a reel's or story's start phase. */
export async function uploadRupload(
  opts: FacebookOptions,
  io: PlatformIO,
  media: MediaRef,
  uploadUrl: string,
  token: string,
): Promise<void> {
  const file = await openChunks(io, media, opts.chunkBytes);
  let offset = 0;
  for (let chunk = await file.next(); chunk; chunk = await file.next()) {
    await platformRequest(io, RUPLOAD_HTTP, {
      method: 'POST',
      url: uploadUrl,
      endpoint: '/video-upload',
      headers: {
        authorization: `OAuth ${token}`,
        offset: String(offset),
        file_size: String(file.size),
        'content-type': 'application/octet-stream',
      },
      body: chunk,
    });
    offset += chunk.length;
  }
}
