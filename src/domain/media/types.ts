import { lookup } from '../../lib/lookup.js';

/**
 * Content types the presign endpoint accepts: the spec's list plus the aliases the reference's OpenAPI
 * accepts. Each maps to the canonical type Herald serves the file with and the file extension it keeps.
 */
export const MEDIA_TYPES: Record<string, { canonical: string; ext: string; type: MediaKind }> = {
  'image/jpeg': { canonical: 'image/jpeg', ext: 'jpg', type: 'image' },
  'image/jpg': { canonical: 'image/jpeg', ext: 'jpg', type: 'image' },
  'image/png': { canonical: 'image/png', ext: 'png', type: 'image' },
  'image/webp': { canonical: 'image/webp', ext: 'webp', type: 'image' },
  'image/gif': { canonical: 'image/gif', ext: 'gif', type: 'image' },
  'video/mp4': { canonical: 'video/mp4', ext: 'mp4', type: 'video' },
  'video/quicktime': { canonical: 'video/quicktime', ext: 'mov', type: 'video' },
  'video/webm': { canonical: 'video/webm', ext: 'webm', type: 'video' },
  'video/mpeg': { canonical: 'video/mpeg', ext: 'mpeg', type: 'video' },
  'video/avi': { canonical: 'video/x-msvideo', ext: 'avi', type: 'video' },
  'video/x-msvideo': { canonical: 'video/x-msvideo', ext: 'avi', type: 'video' },
  'video/x-m4v': { canonical: 'video/x-m4v', ext: 'm4v', type: 'video' },
  'application/pdf': { canonical: 'application/pdf', ext: 'pdf', type: 'document' },
};

export type MediaKind = 'image' | 'video' | 'document';

/** Largest upload through presign (spec: 5 GB). */
export const MAX_UPLOAD_BYTES = 5 * 1024 ** 3;

/** How long an upload URL stays valid. */
export const UPLOAD_URL_TTL_SEC = 3600;

/** Uploads that no post references are deleted after this long. */
export const UNREFERENCED_TTL_MS = 7 * 86_400_000;

const BY_EXT: Record<string, string> = Object.fromEntries(Object.values(MEDIA_TYPES).map((t) => [t.ext, t.canonical]));

/** Content type of a stored key from its extension (Herald always gives keys the extension of their type). */
export function contentTypeOfKey(key: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(key)?.[1]?.toLowerCase() ?? '';
  return lookup(BY_EXT, ext) ?? 'application/octet-stream';
}

/** `image/png; charset=x` -> `image/png` (lowercase). */
export function bareContentType(value: string | undefined | null): string {
  return (value ?? '').split(';')[0].trim().toLowerCase();
}

/** Facts read from the file itself. */
export interface MediaProbe {
  /** sharp's or ffprobe's format name (jpeg, png, mov,mp4,m4a,...). */
  format: string | null;
  width: number | null;
  height: number | null;
  durationSec: number | null;
  videoCodec: string | null;
  audioCodec: string | null;
  /** Set when a check could not run (no ffprobe on this machine): the reason, shown as a warning. */
  skipped: string | null;
}
