import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { networkFailure } from '../http.js';
import { readAtMost } from '../io.js';
import { PlatformError, type MediaRef, type PlatformIO, type ProcessingState } from '../types.js';
import { pinRequest, type PinterestOptions } from './api.js';

/*
 * Video pins: register the media (POST /v5/media), POST the file to the S3 form the answer describes,
 * wait for Pinterest to process it (GET /v5/media/{id}), then create the pin with its id.
 * https://developers.pinterest.com/docs/api-features/creating-boards-and-pins/#creating-video-pins
 */

/** How long to wait between two looks at a video Pinterest is processing (it gives no estimate). */
export const PROCESSING_CHECK_MS = 10_000;
/** Images sent as bytes (image_base64): Pinterest's 20 MB image limit (help.pinterest.com, "Pin specs"). */
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/** The content types image_base64 takes (OpenAPI schema `ContentType`). */
const BASE64_TYPES = new Set(['image/jpeg', 'image/png']);

/** S3's error code in its XML body (`<Code>SlowDown</Code>`). */
const s3Code = (xml: string) => /<Code>([^<]+)<\/Code>/.exec(xml)?.[1] ?? null;

/**
 * The multipart form S3 expects: every upload parameter as given, then the file, last (S3 ignores the
 * fields after it). Streamed with its length (S3 refuses a form POST without Content-Length).
 */
function formBody(
  fields: Record<string, string>,
  file: { stream: NodeJS.ReadableStream; size: number; contentType: string },
) {
  const boundary = `----herald${randomBytes(12).toString('hex')}`;
  const head = Object.entries(fields)
    .map(([name, value]) => `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
    .join('');
  const prefix = Buffer.from(
    `${head}--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="video"\r\ncontent-type: ${file.contentType}\r\n\r\n`,
  );
  const suffix = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* parts() {
    yield prefix;
    for await (const chunk of file.stream as AsyncIterable<Buffer | string>)
      yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    yield suffix;
  }
  return {
    boundary,
    length: prefix.length + file.size + suffix.length,
    body: Readable.toWeb(Readable.from(parts())) as ReadableStream<Uint8Array>,
  };
}

/** Registers the video, uploads its bytes to the returned form; answers the media id. */
export async function uploadVideo(
  opts: PinterestOptions,
  io: PlatformIO,
  token: string,
  media: MediaRef,
): Promise<string> {
  const registered = await pinRequest(opts, io, {
    method: 'POST',
    path: '/media',
    token,
    json: { media_type: 'video' },
  });
  const mediaId = String(registered.body?.media_id ?? '');
  const uploadUrl = registered.body?.upload_url;
  if (!mediaId || typeof uploadUrl !== 'string')
    throw new PlatformError('unavailable', 'Pinterest registered the video without an upload form', {
      endpoint: '/v5/media',
    });
  const fields: Record<string, string> = registered.body.upload_parameters ?? {};

  const opened = await io.openMedia(media);
  let file = { stream: opened.stream, size: opened.size ?? 0, contentType: opened.contentType || 'video/mp4' };
  if (opened.size === null) {
    // The length must be known before sending: a file of unknown size is read first (at most 2 GB).
    const read = await readAtMost(new Response(opened.stream as AsyncIterable<Uint8Array>), 2 * 1024 ** 3);
    file = { stream: Readable.from([read.bytes]), size: read.bytes.length, contentType: file.contentType };
  }
  const form = formBody(fields, file);
  const endpoint = uploadUrl.split('?')[0];
  let res: Response;
  try {
    res = await io.fetch(uploadUrl, {
      method: 'POST',
      headers: {
        'content-type': `multipart/form-data; boundary=${form.boundary}`,
        'content-length': String(form.length),
      },
      body: form.body,
      duplex: 'half',
    } as RequestInit);
  } catch (error) {
    // Nothing is public until the pin is created: a lost upload is safe to send again.
    throw networkFailure(error, { endpoint, creates: false, platform: 'Pinterest media upload' });
  }
  if (res.ok) {
    await res.arrayBuffer();
    return mediaId;
  }
  const raw = (await readAtMost(res, 10_000)).bytes.toString('utf8');
  const code = s3Code(raw);
  const message = `the video upload was refused: ${/<Message>([^<]+)<\/Message>/.exec(raw)?.[1] ?? `HTTP ${res.status}`}`;
  const fieldsOut = { status: res.status, endpoint, raw: raw.slice(0, 2000), platformCode: code };
  // S3 throttles with 503 SlowDown; other 5xx are transient; 4xx (policy, signature, size) are final.
  if (code === 'SlowDown' || res.status === 429)
    throw new PlatformError('rate_limited', message, { ...fieldsOut, retryAfterMs: 5_000 });
  if (res.status >= 500) throw new PlatformError('unavailable', message, fieldsOut);
  throw new PlatformError('rejected', message, fieldsOut);
}

/** GET /v5/media/{id}: `registered` and `processing` wait, `succeeded` is ready, `failed` is final. */
export async function videoState(
  opts: PinterestOptions,
  io: PlatformIO,
  token: string,
  mediaId: string,
): Promise<ProcessingState> {
  const res = await pinRequest(opts, io, { method: 'GET', path: `/media/${encodeURIComponent(mediaId)}`, token });
  const status = res.body?.status;
  if (status === 'succeeded') return { state: 'ready' };
  if (status === 'failed')
    return { state: 'failed', reason: 'Pinterest could not process the video', platformCode: 'media_failed' };
  return { state: 'processing', waitMs: PROCESSING_CHECK_MS };
}

/** One of Herald's own images as `image_base64`: JPEG or PNG, at most 20 MB. */
export async function imageBase64(
  io: PlatformIO,
  media: MediaRef,
): Promise<{ source_type: 'image_base64'; content_type: string; data: string }> {
  const opened = await io.openMedia(media);
  const type = (opened.contentType || media.mimeType || '')
    .split(';')[0]
    .trim()
    .toLowerCase()
    .replace('image/jpg', 'image/jpeg');
  if (!BASE64_TYPES.has(type))
    throw new PlatformError(
      'rejected',
      `Pinterest takes JPEG or PNG images sent as bytes, not ${type || 'this file'}`,
      { platformCode: 'media_type' },
    );
  const read = await readAtMost(new Response(opened.stream as AsyncIterable<Uint8Array>), MAX_IMAGE_BYTES);
  if (read.truncated)
    throw new PlatformError('rejected', 'the image is over 20 MB, the most Pinterest takes', {
      platformCode: 'media_too_large',
    });
  return { source_type: 'image_base64', content_type: type, data: read.bytes.toString('base64') };
}
