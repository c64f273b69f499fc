import type { CreatorOptions } from './store.js';

/*
 * The rules TikTok applies to Content Posting API requests, each with the page that states it. TikTok
 * publishes no machine-readable contract, so these pages are the reference the simulator follows.
 */

/** A refusal: HTTP status, TikTok's `error.code` and message. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
}

const MB = 1024 * 1024;
const MIN_CHUNK = 5 * MB;
const MAX_CHUNK = 64 * MB;
const MAX_FINAL_CHUNK = 128 * MB;
const MAX_CHUNKS = 1000;
const MAX_VIDEO_BYTES = 4 * 1024 * MB;
const MAX_PHOTOS = 35;
export const MAX_PHOTO_BYTES = 20 * MB;
export const PRIVACY_LEVELS = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'];

const invalid = (message: string): Refusal => ({ status: 400, code: 'invalid_params', message });
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const utf16 = (s: string) => s.length;

/**
 * post_info of a direct post (video or photo) against the creator's current options.
 * https://developers.tiktok.com/doc/content-posting-api-reference-direct-post (post_info fields, errors)
 * https://developers.tiktok.com/doc/content-posting-api-reference-query-creator-info (what the options mean)
 */

/**
 * A post init body (video, photo or inbox upload) as the client sent it: the fields read, typed as the
 * checks (checkPostInfo, checkVideoSource, checkPhotoInit) require them before anything uses them.
 */
export interface InitBody {
  media_type?: unknown;
  post_mode: 'DIRECT_POST' | 'MEDIA_UPLOAD';
  post_info?: Record<string, unknown>;
  source_info: {
    source: 'FILE_UPLOAD' | 'PULL_FROM_URL';
    video_size: number;
    chunk_size: number;
    total_chunk_count: number;
    video_url: string;
    photo_images: string[];
    photo_cover_index: number;
  };
  publish_id?: unknown;
  [key: string]: unknown;
}
export function checkPostInfo(info: unknown, creator: CreatorOptions, kind: 'video' | 'photo'): Refusal | null {
  if (!info || typeof info !== 'object') return invalid('post_info is required');
  const p = info as Record<string, unknown>;
  // privacy_level is required and "must be one of the privacy_level_options" creator_info/query returned;
  // anything else is `privacy_level_option_mismatch` (direct post page, error codes).
  if (typeof p.privacy_level !== 'string' || !PRIVACY_LEVELS.includes(p.privacy_level)) {
    return invalid(`post_info.privacy_level must be one of ${PRIVACY_LEVELS.join(', ')}`);
  }
  if (!creator.privacy_level_options.includes(p.privacy_level)) {
    return {
      status: 400,
      code: 'privacy_level_option_mismatch',
      message: `privacy_level ${p.privacy_level} is not one of the creator's options (${creator.privacy_level_options.join(', ')})`,
    };
  }
  for (const key of [
    'disable_comment',
    'disable_duet',
    'disable_stitch',
    'brand_content_toggle',
    'brand_organic_toggle',
    'is_aigc',
    'auto_add_music',
  ]) {
    if (p[key] !== undefined && typeof p[key] !== 'boolean') return invalid(`post_info.${key} must be a boolean`);
  }
  // creator_info: "comment_disabled / duet_disabled / stitch_disabled: ... the corresponding interaction
  // must be disabled"; a post that turns on what the creator turned off is refused.
  if (creator.comment_disabled && p.disable_comment !== true)
    return invalid('the creator has disabled comments: disable_comment must be true');
  if (kind === 'video') {
    if (creator.duet_disabled && p.disable_duet !== true)
      return invalid('the creator has disabled duets: disable_duet must be true');
    if (creator.stitch_disabled && p.disable_stitch !== true)
      return invalid('the creator has disabled stitches: disable_stitch must be true');
  }
  // Branded content (a paid partnership) must be visible to others: "branded content cannot be set to
  // private" (https://developers.tiktok.com/doc/content-sharing-guidelines, commercial content disclosure).
  if (p.brand_content_toggle === true && p.privacy_level === 'SELF_ONLY') {
    return invalid('branded content (brand_content_toggle) cannot be private: privacy_level SELF_ONLY is not allowed');
  }
  if (kind === 'video') {
    // Video title: at most 2,200 UTF-16 runes (direct post page, post_info.title).
    if (p.title !== undefined && (typeof p.title !== 'string' || utf16(p.title) > 2200))
      return invalid('post_info.title must be a string of at most 2200 UTF-16 runes');
    if (
      p.video_cover_timestamp_ms !== undefined &&
      (!isInt(p.video_cover_timestamp_ms) || p.video_cover_timestamp_ms < 0)
    ) {
      return invalid('post_info.video_cover_timestamp_ms must be a non-negative integer');
    }
  } else {
    // Photo title at most 90 UTF-16 runes, description at most 4,000
    // (https://developers.tiktok.com/doc/content-posting-api-reference-photo-post, Post Info Object).
    if (p.title !== undefined && (typeof p.title !== 'string' || utf16(p.title) > 90))
      return invalid('post_info.title must be a string of at most 90 UTF-16 runes');
    if (p.description !== undefined && (typeof p.description !== 'string' || utf16(p.description) > 4000)) {
      return invalid('post_info.description must be a string of at most 4000 UTF-16 runes');
    }
  }
  return null;
}

/**
 * source_info of a video init (direct post or inbox upload).
 * FILE_UPLOAD chunk restrictions, https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide:
 * - total_chunk_count = video_size / chunk_size rounded down;
 * - each chunk 5 MB to 64 MB, the final one may be larger (up to 128 MB) to carry the trailing bytes;
 * - a video under 5 MB is uploaded whole (chunk_size = video_size); one over 64 MB must be chunked;
 * - between 1 and 1000 chunks.
 * PULL_FROM_URL needs `video_url` (same page, "Pull from URL").
 */
export function checkVideoSource(info: unknown): Refusal | null {
  if (!info || typeof info !== 'object') return invalid('source_info is required');
  const s = info as Record<string, unknown>;
  if (s.source === 'PULL_FROM_URL') {
    if (typeof s.video_url !== 'string' || !/^https?:\/\//.test(s.video_url))
      return invalid('source_info.video_url must be an http(s) URL');
    return null;
  }
  if (s.source !== 'FILE_UPLOAD') return invalid('source_info.source must be FILE_UPLOAD or PULL_FROM_URL');
  const { video_size: size, chunk_size: chunk, total_chunk_count: count } = s;
  if (!isInt(size) || size <= 0 || !isInt(chunk) || chunk <= 0 || !isInt(count) || count <= 0) {
    return invalid('source_info.video_size, chunk_size and total_chunk_count must be positive integers');
  }
  if (size > MAX_VIDEO_BYTES) return invalid('the video is larger than 4 GB');
  if (size < MIN_CHUNK) {
    if (chunk !== size || count !== 1)
      return invalid(
        'a video under 5 MB is uploaded whole: chunk_size must equal video_size and total_chunk_count be 1',
      );
    return null;
  }
  if (chunk < MIN_CHUNK || chunk > MAX_CHUNK) return invalid('chunk_size must be between 5 MB and 64 MB');
  if (count !== Math.floor(size / chunk))
    return invalid(`total_chunk_count must be video_size / chunk_size rounded down (${Math.floor(size / chunk)})`);
  if (count > MAX_CHUNKS) return invalid('at most 1000 chunks');
  if (size - (count - 1) * chunk > MAX_FINAL_CHUNK) return invalid('the final chunk would be larger than 128 MB');
  return null;
}

/**
 * A photo content init: media_type PHOTO, post_mode, source_info with PULL_FROM_URL only, 1 to 35
 * photo_images and a photo_cover_index among them.
 * https://developers.tiktok.com/doc/content-posting-api-reference-photo-post (Body, Source Info Object)
 */
export function checkPhotoInit(body: InitBody): Refusal | null {
  if (body.media_type !== 'PHOTO') return invalid('media_type must be PHOTO');
  if (body.post_mode !== 'DIRECT_POST' && body.post_mode !== 'MEDIA_UPLOAD')
    return invalid('post_mode must be DIRECT_POST or MEDIA_UPLOAD');
  const s = body.source_info;
  if (!s || typeof s !== 'object') return invalid('source_info is required');
  if (s.source !== 'PULL_FROM_URL') return invalid('photos can only be sent with source PULL_FROM_URL');
  const images = s.photo_images;
  if (!Array.isArray(images) || images.length === 0 || images.length > MAX_PHOTOS)
    return invalid(`photo_images must list 1 to ${MAX_PHOTOS} URLs`);
  if (images.some((u: unknown) => typeof u !== 'string' || !/^https?:\/\//.test(u)))
    return invalid('each photo_images entry must be an http(s) URL');
  if (!isInt(s.photo_cover_index) || s.photo_cover_index < 0 || s.photo_cover_index >= images.length) {
    return invalid('photo_cover_index must be the index of one of photo_images');
  }
  return null;
}

/**
 * One PUT of a FILE_UPLOAD chunk. Media transfer guide, "Media transfer HTTP schema": `Content-Range:
 * bytes {FIRST_BYTE}-{LAST_BYTE}/{TOTAL_BYTE_LENGTH}` with Content-Length the chunk's size, chunks sent
 * sequentially, every chunk but the last exactly chunk_size; Content-Type video/mp4, video/quicktime or
 * video/webm. Answers 206 for a partial upload and 201 once complete.
 */
export function checkChunk(
  upload: { videoSize: number; chunkSize: number; totalChunks: number; received: number; chunks: number },
  contentRange: string | undefined,
  contentType: string | undefined,
  length: number,
): Refusal | { first: number; last: number } {
  if (
    !['video/mp4', 'video/quicktime', 'video/webm'].includes(
      String(contentType ?? '')
        .split(';')[0]
        .trim(),
    )
  ) {
    return invalid('Content-Type must be video/mp4, video/quicktime or video/webm');
  }
  const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(contentRange ?? '');
  if (!m) return invalid('Content-Range must be bytes {first}-{last}/{total}');
  const [first, last, total] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (total !== upload.videoSize)
    return invalid(`Content-Range total ${total} is not the video_size ${upload.videoSize} given at init`);
  if (upload.chunks >= upload.totalChunks) return invalid('every chunk was already uploaded');
  if (first !== upload.received)
    return invalid(`chunks are uploaded sequentially: the next chunk starts at byte ${upload.received}, not ${first}`);
  if (last < first || last >= total) return invalid('Content-Range last byte is out of range');
  if (last - first + 1 !== length)
    return invalid(`the body has ${length} bytes but Content-Range announces ${last - first + 1}`);
  const isFinal = upload.chunks === upload.totalChunks - 1;
  const want = isFinal ? upload.videoSize - upload.received : upload.chunkSize;
  if (length !== want)
    return invalid(
      `chunk ${upload.chunks + 1} of ${upload.totalChunks} must be ${want} bytes${isFinal ? ' (the rest of the video)' : ' (chunk_size)'}, got ${length}`,
    );
  return { first, last };
}

/** The duration in seconds of an MP4/MOV (its `mvhd` box), or null when it cannot be read. */
export function mp4DurationSec(bytes: Buffer): number | null {
  const at = bytes.indexOf('mvhd');
  if (at < 4 || at + 32 > bytes.length) return null;
  const version = bytes[at + 4];
  const body = at + 8;
  if (version === 1) {
    if (body + 28 > bytes.length) return null;
    const scale = bytes.readUInt32BE(body + 16);
    const duration = Number(bytes.readBigUInt64BE(body + 20));
    return scale ? duration / scale : null;
  }
  const scale = bytes.readUInt32BE(body + 8);
  const duration = bytes.readUInt32BE(body + 12);
  return scale ? duration / scale : null;
}

/** JPEG or WebP from the first bytes; TikTok photo posts take no other format (photo post page: "JPG, JPEG, WEBP"). */
export function photoFormat(bytes: Buffer): 'jpeg' | 'webp' | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP')
    return 'webp';
  return null;
}
