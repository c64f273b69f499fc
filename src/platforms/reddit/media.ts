import { Readable } from 'node:stream';
import { networkFailure } from '../http.js';
import { readAtMost } from '../io.js';
import { PlatformError, type MediaRef, type PlatformIO } from '../types.js';
import { rdRequest, type RateWindows, type RedditOptions } from './api.js';

/*
 * Reddit's media upload, as PRAW's recorded traffic shows it (test_submit_image, test_submit_gallery):
 * 1. POST /api/media/asset.json (form `filepath`, `mimetype`) leases an upload and answers
 *    `{args: {action: "//<bucket host>", fields: [{name, value}]}, asset: {asset_id, ...}}`;
 * 2. a multipart POST to the action with every leased field in order, then `file` last (S3 ignores
 *    fields after the file), answered 201 with `<PostResponse><Location>...`;
 * 3. the Location is the `url` of an image or video submission; the asset id is a gallery item's
 *    `media_id`. Nothing is public until the submit: a failed upload leaves nothing to clean up.
 */

/** The types Reddit leases uploads for. */
const MIME_BY_EXT: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
};
const EXT_BY_MIME: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
};

/** Reddit's caps: 20 MB images, 1 GB videos (https://support.reddithelp.com/hc/en-us/articles/360043033952). */
const MAX_IMAGE = 20 * 1024 * 1024;
const MAX_VIDEO = 1024 * 1024 * 1024;

/** A 1x1 PNG: the poster of a video that brings none (Reddit needs one, as PRAW does it). */
const PLACEHOLDER_POSTER = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

export interface UploadedAsset {
  assetId: string;
  /** Where the bytes are: the `url` of an image or video submission. */
  url: string;
}

function mimeOf(media: MediaRef, opened: string): string {
  const declared = media.mimeType?.toLowerCase();
  if (declared && EXT_BY_MIME[declared]) return declared;
  if (EXT_BY_MIME[opened.toLowerCase()]) return opened.toLowerCase();
  const ext = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(media.filename ?? media.url)?.[1]?.toLowerCase();
  const byExt = ext ? MIME_BY_EXT[ext] : undefined;
  if (byExt) return byExt;
  throw new PlatformError(
    'rejected',
    `Reddit takes PNG, JPEG and GIF images and MP4 or MOV videos; ${media.url} is ${declared ?? opened}`,
    { platformCode: 'unsupported_media' },
  );
}

function filepath(media: MediaRef, mime: string): string {
  const base = (
    media.filename ?? decodeURIComponent(new URL(media.url, 'https://x').pathname.split('/').pop() ?? '')
  ).replace(/[^A-Za-z0-9._-]/g, '_');
  const ext = EXT_BY_MIME[mime];
  const stem = base.replace(/\.[A-Za-z0-9]+$/, '') || 'upload';
  return `${stem}.${ext}`;
}

/** The bytes of a media item (or of the placeholder poster), with their size when known. */
async function open(
  io: PlatformIO,
  media: MediaRef | null,
): Promise<{ stream: NodeJS.ReadableStream; size: number | null; contentType: string; ref: MediaRef }> {
  if (!media) {
    const ref: MediaRef = { type: 'image', url: 'poster.png', mimeType: 'image/png', filename: 'poster.png' };
    return {
      stream: Readable.from([PLACEHOLDER_POSTER]),
      size: PLACEHOLDER_POSTER.length,
      contentType: 'image/png',
      ref,
    };
  }
  const opened = await io.openMedia(media).catch((error: Error) => {
    throw new PlatformError('rejected', `media ${media.url} could not be read: ${error.message}`, { cause: error });
  });
  return { ...opened, size: opened.size ?? media.size ?? null, ref: media };
}

/** Leases an upload for `media`, sends its bytes to the bucket, and answers where they are. `null`: the placeholder poster. */
export async function uploadMedia(
  opts: RedditOptions,
  windows: RateWindows,
  io: PlatformIO,
  token: string,
  media: MediaRef | null,
): Promise<UploadedAsset> {
  const file = await open(io, media);
  const mime = mimeOf(file.ref, file.contentType);
  const max = mime.startsWith('video/') ? MAX_VIDEO : MAX_IMAGE;
  if (file.size !== null && file.size > max) {
    throw new PlatformError(
      'rejected',
      `${file.ref.url} is ${file.size} bytes; Reddit takes at most ${max} for this kind of media`,
      { platformCode: 'media_too_large' },
    );
  }
  const lease = await rdRequest(opts, windows, io, {
    method: 'POST',
    path: '/api/media/asset.json',
    token,
    form: { filepath: filepath(file.ref, mime), mimetype: mime },
  });
  const action = lease.body?.args?.action;
  const fields = lease.body?.args?.fields;
  const assetId = lease.body?.asset?.asset_id;
  if (typeof action !== 'string' || !Array.isArray(fields) || typeof assetId !== 'string') {
    throw new PlatformError('unavailable', 'Reddit leased an upload without its action, fields or asset id', {
      endpoint: '/api/media/asset.json',
      raw: lease.raw.slice(0, 2000),
    });
  }
  // The action is scheme-relative (`//bucket.s3...`): it takes the API host's scheme (https on Reddit).
  const target = action.startsWith('//') ? `${new URL(opts.apiUrl).protocol}${action}` : action;
  const location = await postToBucket(io, target, fields, file, mime, max);
  return {
    assetId,
    url:
      location ??
      `${target.replace(/\/+$/, '')}/${encodeURIComponent(String(fields.find((f: { name?: string; value?: string } | null) => f?.name === 'key')?.value ?? assetId))}`,
  };
}

/** The multipart POST to the bucket: the leased fields in order, then the file. Answers the `<Location>`. */
async function postToBucket(
  io: PlatformIO,
  url: string,
  fields: { name: string; value: string }[],
  file: { stream: NodeJS.ReadableStream; size: number | null },
  mime: string,
  max: number,
): Promise<string | null> {
  const endpoint = 'reddit media bucket';
  const read = await readAtMost(new Response(Readable.toWeb(file.stream as Readable) as ReadableStream), max);
  if (read.truncated)
    throw new PlatformError('rejected', `the media is over ${max} bytes, the most Reddit takes for it`, {
      platformCode: 'media_too_large',
    });
  const form = new FormData();
  for (const f of fields) form.append(String(f.name), String(f.value));
  form.append('file', new Blob([new Uint8Array(read.bytes)], { type: mime }), 'upload');
  let res: Response;
  let raw: string;
  try {
    res = await io.fetch(url, { method: 'POST', body: form, ...(io.signal ? { signal: io.signal } : {}) });
    raw = (await readAtMost(res, 64 * 1024)).bytes.toString('utf8');
  } catch (error) {
    // An upload makes nothing public: a lost answer is only a reason to upload again.
    throw networkFailure(error, { endpoint, creates: false, platform: 'Reddit' });
  }
  if (res.status >= 200 && res.status < 300) {
    const location = /<Location>([^<]+)<\/Location>/.exec(raw)?.[1] ?? res.headers.get('location');
    return location ? location.replace(/&amp;/g, '&') : null;
  }
  // S3's error document: <Error><Code>AccessDenied</Code><Message>...</Message></Error>.
  const code = /<Code>([^<]+)<\/Code>/.exec(raw)?.[1] ?? null;
  const message = /<Message>([^<]+)<\/Message>/.exec(raw)?.[1] ?? `the media bucket answered HTTP ${res.status}`;
  const kind = res.status >= 500 || res.status === 429 || code === 'SlowDown' ? 'unavailable' : 'rejected';
  throw new PlatformError(kind, `Reddit's media upload failed: ${message}`, {
    status: res.status,
    endpoint,
    platformCode: code,
    raw: raw.slice(0, 2000),
  });
}
