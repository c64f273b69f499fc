import { createDecipheriv, createHash } from 'node:crypto';
import type { SnapMedia } from './store.js';

/*
 * The rules Snap applies to Public Profile API requests, each with the page that states it. Snap publishes
 * no machine-readable contract for this API, so these pages are the reference the simulator follows:
 *
 * - ASSETS: https://developers.snap.com/api/marketing-api/Public-Profile-API/ProfileAssetManagement
 *   (encryption, Create Media, the multipart upload, story, saved story and spotlight posting);
 * - LIMITS: https://docs.getlate.dev/platforms/snapchat and https://www.ayrshare.com/docs/media-guidelines/snapchat
 *   (the limits two allowlisted partners enforce for the same endpoints: JPEG/PNG <= 20 MB, MP4 <= 500 MB,
 *   5 to 60 s, at least 540 x 960; saved story title <= 45, spotlight description <= 160).
 */

/** A refusal: HTTP status, Snap's `error_code` and message. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
}

const MB = 1024 * 1024;
/** ASSETS, "Encrypt and split file": a file larger than 32 MB goes up in 32 MB chunks. */
const MAX_PART_BYTES = 32 * MB;
/** LIMITS: images at most 20 MB, videos at most 500 MB. */
const MAX_IMAGE_BYTES = 20 * MB;
const MAX_VIDEO_BYTES = 500 * MB;
/** LIMITS: a video lasts 5 to 60 seconds and is at least 540 x 960. */
const MIN_VIDEO_SEC = 5;
const MAX_VIDEO_SEC = 60;
const MIN_WIDTH = 540;
const MIN_HEIGHT = 960;
/** ASSETS, Create Media: "A media object stays active for 24 hours after creation". */
export const MEDIA_TTL_MS = 24 * 3600 * 1000;
/** LIMITS: a saved story's title at most 45 characters, a spotlight's description at most 160 (hashtags included). */
const MAX_TITLE = 45;
const MAX_DESCRIPTION = 160;

const invalid = (message: string, code = 'E1001'): Refusal => ({ status: 400, code, message });

/** Strict base64 of exactly `bytes` bytes, or null. */
function base64Of(value: unknown, bytes: number): Buffer | null {
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return null;
  const out = Buffer.from(value, 'base64');
  return out.length === bytes && out.toString('base64') === value ? out : null;
}

/**
 * ASSETS, Create Media: `type` (VIDEO or IMAGE), `name` (human readable), `key` (the 32 byte AES key,
 * base64) and `iv` (the 16 byte initial vector, base64), all required.
 */
export function checkCreateMedia(
  body: Record<string, unknown>,
): Refusal | { type: 'VIDEO' | 'IMAGE'; name: string; key: Buffer; iv: Buffer } {
  if (body.type !== 'VIDEO' && body.type !== 'IMAGE') return invalid('type is required and must be VIDEO or IMAGE');
  if (typeof body.name !== 'string' || !body.name.trim()) return invalid('name is required');
  const key = base64Of(body.key, 32);
  if (!key) return invalid('key must be the 32 byte AES-256 key, base64 encoded');
  const iv = base64Of(body.iv, 16);
  if (!iv) return invalid('iv must be the 16 byte initial vector, base64 encoded');
  return { type: body.type, name: body.name, key, iv };
}

/**
 * ASSETS, multipart upload: `action=ADD` with `part_number` (1, 2, ... in the file's order) and `file`
 * (one chunk of the encrypted file, at most 32 MB); parts may arrive in any order.
 */
export function checkPart(fields: Map<string, string>, file: Buffer | null): Refusal | { partNumber: number } {
  if (fields.get('action') !== 'ADD') return invalid('action must be ADD on the add path');
  const n = Number(fields.get('part_number'));
  if (!Number.isInteger(n) || n < 1) return invalid('part_number must be an integer >= 1');
  if (!file || file.length === 0) return invalid('file is required');
  if (file.length > MAX_PART_BYTES)
    return invalid(`a part is at most 32 MB (this one is ${file.length} bytes): split the encrypted file`);
  return { partNumber: n };
}

/** What a decrypted file is and holds. */
export interface FileFacts {
  size: number;
  mimeType: string;
  sha256: string;
  durationSec: number | null;
  width: number | null;
  height: number | null;
}

/**
 * ASSETS, FINALIZE: the parts, joined in part_number order, are the file encrypted with AES-256-CBC under
 * the media's key and IV ("openssl enc -aes-256-cbc -nosalt", so PKCS#7 padding). Parts must run 1..n
 * without a gap; the decrypted file must be what `type` said (LIMITS: MP4 videos, JPEG or PNG images)
 * and within the size limits.
 */
export function finalizeFile(media: SnapMedia): Refusal | FileFacts {
  const numbers = [...media.parts.keys()].sort((a, b) => a - b);
  if (numbers.length === 0) return invalid('no part was uploaded', 'E2003');
  const missing = numbers.findIndex((n, i) => n !== i + 1);
  if (missing >= 0) return invalid(`part ${missing + 1} is missing: parts run 1..n`, 'E2003');
  const encrypted = Buffer.concat(numbers.map((n) => media.parts.get(n)!));
  let plain: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-cbc', media.key, media.iv);
    plain = Buffer.concat([decipher.update(encrypted), decipher.final()]);
  } catch {
    return invalid(
      'the uploaded file does not decrypt with the media key and IV (AES-256-CBC, PKCS#7 padding)',
      'E2004',
    );
  }
  const format = fileFormat(plain);
  if (media.type === 'VIDEO' && format !== 'mp4') return invalid('a VIDEO media must be an MP4 file', 'E2005');
  if (media.type === 'IMAGE' && format !== 'jpeg' && format !== 'png')
    return invalid('an IMAGE media must be a JPEG or PNG file', 'E2005');
  if (media.type === 'IMAGE' && plain.length > MAX_IMAGE_BYTES) return invalid('an image is at most 20 MB', 'E2006');
  if (media.type === 'VIDEO' && plain.length > MAX_VIDEO_BYTES) return invalid('a video is at most 500 MB', 'E2006');
  const dims = media.type === 'VIDEO' ? mp4Dimensions(plain) : null;
  return {
    size: plain.length,
    mimeType: format === 'mp4' ? 'video/mp4' : `image/${format}`,
    sha256: createHash('sha256').update(plain).digest('hex'),
    durationSec: media.type === 'VIDEO' ? mp4DurationSec(plain) : null,
    width: dims?.width ?? null,
    height: dims?.height ?? null,
  };
}

/**
 * ASSETS, story posting constraints (which the saved story and spotlight share), LIMITS: a video lasts
 * 5 to 60 seconds and is at least 540 x 960 (9:16 portrait). Spotlight takes videos only.
 */
export function checkPostable(file: FileFacts, kind: 'story' | 'saved_story' | 'spotlight'): Refusal | null {
  const video = file.mimeType === 'video/mp4';
  if (kind === 'spotlight' && !video) return invalid('a spotlight is a video: this media is an image', 'E2010');
  if (!video) return null;
  if (file.durationSec === null || file.durationSec < MIN_VIDEO_SEC || file.durationSec > MAX_VIDEO_SEC) {
    return invalid(
      `a video lasts ${MIN_VIDEO_SEC} to ${MAX_VIDEO_SEC} seconds (this one: ${file.durationSec ?? 'unknown'})`,
      'E2011',
    );
  }
  if (file.width === null || file.height === null || file.width < MIN_WIDTH || file.height < MIN_HEIGHT) {
    return invalid(
      `a video is at least ${MIN_WIDTH} x ${MIN_HEIGHT} (this one: ${file.width ?? '?'} x ${file.height ?? '?'})`,
      'E2012',
    );
  }
  return null;
}

/** ASSETS, saved stories: `{saved_stories: [{title, snap_sources: [{media_id}]}]}`; LIMITS: title <= 45. */
export function checkSavedStory(body: Record<string, unknown>): Refusal | { title: string; mediaId: string } {
  const list = body.saved_stories;
  if (!Array.isArray(list) || list.length !== 1 || !list[0] || typeof list[0] !== 'object')
    return invalid('saved_stories must hold one saved story');
  const item = list[0] as Record<string, unknown>;
  if (typeof item.title !== 'string' || !item.title.trim()) return invalid('saved_stories[0].title is required');
  if ([...item.title].length > MAX_TITLE) return invalid(`saved_stories[0].title is at most ${MAX_TITLE} characters`);
  const sources = item.snap_sources;
  if (!Array.isArray(sources) || sources.length !== 1 || typeof sources[0]?.media_id !== 'string')
    return invalid('saved_stories[0].snap_sources must hold one {media_id}');
  return { title: item.title, mediaId: sources[0].media_id };
}

/**
 * ASSETS, spotlights: `media_id` (required), `description` (LIMITS: <= 160 characters, hashtags included),
 * `locale` (such as en_US; required for a spotlight, unlike a story) and `skip_save_to_profile` (boolean).
 */
export function checkSpotlight(
  body: Record<string, unknown>,
): Refusal | { mediaId: string; description: string; locale: string; skipSaveToProfile: boolean } {
  if (typeof body.media_id !== 'string' || !body.media_id) return invalid('media_id is required');
  const description = body.description ?? '';
  if (typeof description !== 'string') return invalid('description must be a string');
  if ([...description].length > MAX_DESCRIPTION)
    return invalid(`description is at most ${MAX_DESCRIPTION} characters, hashtags included`);
  if (typeof body.locale !== 'string' || !/^[a-z]{2}_[A-Z]{2}$/.test(body.locale))
    return invalid('locale is required, e.g. en_US');
  if (body.skip_save_to_profile !== undefined && typeof body.skip_save_to_profile !== 'boolean')
    return invalid('skip_save_to_profile must be a boolean');
  return {
    mediaId: body.media_id,
    description,
    locale: body.locale,
    skipSaveToProfile: body.skip_save_to_profile === true,
  };
}

/** MP4 (an `ftyp` box first), JPEG or PNG from the first bytes; null for anything else. */
function fileFormat(bytes: Buffer): 'mp4' | 'jpeg' | 'png' | null {
  if (bytes.length >= 12 && bytes.toString('latin1', 4, 8) === 'ftyp') return 'mp4';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return 'png';
  return null;
}

/** Seconds from the `mvhd` box, or null. */
function mp4DurationSec(bytes: Buffer): number | null {
  const at = bytes.indexOf('mvhd');
  if (at < 4 || at + 32 > bytes.length) return null;
  const body = at + 4;
  if (bytes[body] === 1) {
    if (body + 32 > bytes.length) return null;
    const scale = bytes.readUInt32BE(body + 20);
    return scale ? Number(bytes.readBigUInt64BE(body + 24)) / scale : null;
  }
  const scale = bytes.readUInt32BE(body + 12);
  return scale ? bytes.readUInt32BE(body + 16) / scale : null;
}

/** Width and height of the first track with a picture (`tkhd`, 16.16 fixed point), or null. */
function mp4Dimensions(bytes: Buffer): { width: number; height: number } | null {
  let from = 0;
  while (true) {
    const at = bytes.indexOf('tkhd', from);
    if (at < 4) return null;
    const body = at + 4;
    const offset = bytes[body] === 1 ? 88 : 76;
    if (body + offset + 8 > bytes.length) return null;
    const width = bytes.readUInt32BE(body + offset) >>> 16;
    const height = bytes.readUInt32BE(body + offset + 4) >>> 16;
    if (width > 0 && height > 0) return { width, height };
    from = at + 4;
  }
}
