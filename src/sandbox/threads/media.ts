import { IMAGE_MAX, IMAGE_TYPES, VIDEO_MAX, VIDEO_TYPES } from './rules.js';
import type { ThMedia } from './store.js';

/**
 * Threads fetches `image_url` and `video_url` itself when the container is created, so the URL must be
 * public (Herald's own `publicUrl` for uploaded media). The answer must be a JPEG or PNG of at most 8 MB,
 * or an MP4 or MOV of at most 1 GB. https://developers.facebook.com/docs/threads/overview#media-specifications
 */
export async function fetchMedia(
  type: 'image' | 'video',
  url: string,
  altText?: string,
): Promise<ThMedia | { problem: string; subcode: number }> {
  let res: Response;
  try {
    if (!/^https?:\/\//.test(url)) throw new Error('not an http(s) URL');
    res = await fetch(url, { signal: AbortSignal.timeout(15_000) });
  } catch {
    return { problem: 'The media could not be fetched from this URI', subcode: 2207052 };
  }
  if (!res.ok) {
    await res.body?.cancel();
    return { problem: `The media could not be fetched from this URI (HTTP ${res.status})`, subcode: 2207052 };
  }
  const mimeType = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  const allowed = type === 'image' ? IMAGE_TYPES : VIDEO_TYPES;
  if (!allowed.includes(mimeType)) {
    await res.body?.cancel();
    return {
      problem: `Unsupported ${type} format ${mimeType || '(none)'}: ${type === 'image' ? 'JPEG or PNG' : 'MP4 or MOV'} only`,
      subcode: 2207026,
    };
  }
  const size = (await res.arrayBuffer()).byteLength;
  const max = type === 'image' ? IMAGE_MAX : VIDEO_MAX;
  if (size > max)
    return { problem: `The ${type} is ${size} bytes, over the ${max} bytes Threads takes`, subcode: 2207004 };
  return { type, url, mimeType, size, ...(altText ? { altText } : {}) };
}
