import { PlatformError, type MediaRef, type PlatformIO } from '../types.js';
import { xrpc } from './api.js';
import { graphemeLength } from './facets.js';
import { imageSize } from './image-size.js';
import { IMAGE_TYPES, MAX_ALT, MAX_IMAGE_BYTES, MAX_IMAGES, MAX_VIDEO_BYTES } from './rules.js';

/** A blob reference as uploadBlob returns it and records embed it. */
export interface BlobRef {
  $type: 'blob';
  ref: { $link: string };
  mimeType: string;
  size: number;
}

/** Checks what can be checked without the bytes, before anything is sent. */
export function checkMedia(media: MediaRef[], where: string): void {
  const images = media.filter((m) => m.type === 'image' || m.type === 'gif');
  const videos = media.filter((m) => m.type === 'video');
  const others = media.filter((m) => m.type === 'document');
  if (others.length)
    throw new PlatformError('rejected', `${where}: Bluesky posts take images or one video, not documents`, {
      platformCode: 'unsupported_media',
    });
  if (images.length && videos.length)
    throw new PlatformError('rejected', `${where}: Bluesky posts cannot mix images and a video`, {
      platformCode: 'mixed_media',
    });
  if (images.length > MAX_IMAGES)
    throw new PlatformError('rejected', `${where}: Bluesky allows at most ${MAX_IMAGES} images per post`, {
      platformCode: 'too_many_images',
    });
  if (videos.length > 1)
    throw new PlatformError('rejected', `${where}: Bluesky allows one video per post`, {
      platformCode: 'too_many_videos',
    });
  for (const m of media) {
    if (m.altText && graphemeLength(m.altText) > MAX_ALT) {
      throw new PlatformError('rejected', `${where}: alt text is limited to ${MAX_ALT} characters`, {
        platformCode: 'alt_too_long',
      });
    }
    const limit = m.type === 'video' ? MAX_VIDEO_BYTES : MAX_IMAGE_BYTES;
    if (m.size && m.size > limit) {
      throw new PlatformError(
        'rejected',
        `${where}: ${m.type} of ${m.size} bytes is over Bluesky's ${limit}-byte limit`,
        { platformCode: 'media_too_large' },
      );
    }
  }
}

async function readAll(
  io: PlatformIO,
  media: MediaRef,
  limit: number,
): Promise<{ bytes: Buffer; contentType: string }> {
  let opened;
  try {
    opened = await io.openMedia(media);
  } catch (error) {
    // A verdict the opener already gave (Herald's upload gone from storage: rejected) stands.
    if (error instanceof PlatformError) throw error;
    throw new PlatformError('unavailable', `could not read media ${media.url}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of opened.stream as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += buf.length;
    if (total > limit) {
      (opened.stream as { destroy?: () => void }).destroy?.();
      throw new PlatformError('rejected', `${media.type} ${media.url} is over Bluesky's ${limit}-byte limit`, {
        platformCode: 'media_too_large',
      });
    }
    chunks.push(buf);
  }
  const contentType = (media.mimeType || opened.contentType || 'application/octet-stream').split(';')[0].trim();
  return { bytes: Buffer.concat(chunks), contentType };
}

/** com.atproto.repo.uploadBlob with the raw bytes and their real Content-Type. */
export async function uploadBytes(
  io: PlatformIO,
  service: string,
  token: string,
  bytes: Uint8Array,
  contentType: string,
): Promise<BlobRef> {
  const res = await xrpc<{ blob: BlobRef }>(io, {
    service,
    nsid: 'com.atproto.repo.uploadBlob',
    method: 'POST',
    token,
    bytes: { body: bytes, contentType },
  });
  return res.blob;
}

/** Uploads one media item; for images also their size from the header (aspectRatio). */
async function uploadMedia(
  io: PlatformIO,
  service: string,
  token: string,
  media: MediaRef,
): Promise<{ blob: BlobRef; aspectRatio: { width: number; height: number } | null }> {
  const video = media.type === 'video';
  const { bytes, contentType } = await readAll(io, media, video ? MAX_VIDEO_BYTES : MAX_IMAGE_BYTES);
  if (!video && !IMAGE_TYPES.includes(contentType)) {
    throw new PlatformError('rejected', `Bluesky images must be JPEG, PNG, WebP or GIF (got ${contentType})`, {
      platformCode: 'unsupported_media',
    });
  }
  if (video && contentType !== 'video/mp4') {
    throw new PlatformError('rejected', `Bluesky videos must be MP4 (got ${contentType})`, {
      platformCode: 'unsupported_media',
    });
  }
  const blob = await uploadBytes(io, service, token, bytes, contentType);
  return { blob, aspectRatio: video ? null : imageSize(bytes) };
}

/**
 * The embed of a post's media: `app.bsky.embed.images` (alt text per image) or `app.bsky.embed.video`.
 * NOTE: the video blob goes through the PDS's uploadBlob, which every PDS accepts; Bluesky's own app
 * uploads through the video service (video.bsky.app) for transcoding. A PDS without the video service
 * (self-hosted, tests) only has this path; bsky.social accepts it too, and the app view processes it.
 */
export async function mediaEmbed(
  io: PlatformIO,
  service: string,
  token: string,
  media: MediaRef[],
): Promise<Record<string, unknown> | null> {
  if (!media.length) return null;
  if (media[0].type === 'video') {
    const { blob } = await uploadMedia(io, service, token, media[0]);
    return { $type: 'app.bsky.embed.video', video: blob, ...(media[0].altText ? { alt: media[0].altText } : {}) };
  }
  const images = [];
  for (const m of media) {
    const { blob, aspectRatio } = await uploadMedia(io, service, token, m);
    images.push({ image: blob, alt: m.altText ?? '', ...(aspectRatio ? { aspectRatio } : {}) });
  }
  return { $type: 'app.bsky.embed.images', images };
}
