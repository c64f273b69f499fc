import type { MediaKind } from './types.js';

const MB = 1024 * 1024;
const GB = 1024 * MB;

/** Limits for one kind of media on one platform. Sizes in bytes, durations in seconds. */
export interface KindLimits {
  maxBytes?: number;
  /**
   * Above this size Herald compresses the file into a derived copy for the platform (spec: images for X
   * over 5 MB, Instagram over 8 MB, Facebook over 10 MB; videos for X over 512 MB, Instagram Stories
   * over 100 MB, Facebook over 4 GB), so a larger upload is not an error.
   */
  compressAbove?: number;
  minWidth?: number;
  minHeight?: number;
  /** Longest side / shortest side (orientation-free), e.g. 1920 x 1080. */
  maxLongSide?: number;
  maxShortSide?: number;
  maxPixels?: number;
  /** width + height (Telegram photos). */
  maxWidthPlusHeight?: number;
  /** width / height range (Instagram feed: 4:5 to 1.91:1). */
  minAspect?: number;
  maxAspect?: number;
  minDurationSec?: number;
  maxDurationSec?: number;
}

export type PlatformMediaLimits = Partial<Record<MediaKind, KindLimits>>;

/**
 * Per-platform media limits: the spec's "Per-platform media and text limits" table first, then the
 * platform notes of the reference (platforms.md). Counts, mixing and formats are checked by each
 * platform's rule file under domain/posts/validate; these are the facts only the bytes can tell.
 */
export function mediaLimits(platform: string, psd: Record<string, unknown> = {}): PlatformMediaLimits {
  const story = psd.contentType === 'story';
  switch (platform) {
    case 'twitter':
      // https://docs.x.com/x-api/media/quickstart/best-practices : images 5 MB (GIF 15 MB), video 0.5 s-20 min.
      return {
        image: { maxBytes: 5 * MB, compressAbove: 5 * MB },
        video: { maxBytes: 8 * GB, compressAbove: 512 * MB, minDurationSec: 0.5, maxDurationSec: 20 * 60 },
      };
    case 'instagram':
      return story
        ? { image: { maxBytes: 8 * MB, compressAbove: 8 * MB }, video: { compressAbove: 100 * MB, maxDurationSec: 60 } }
        : {
            image: { maxBytes: 8 * MB, compressAbove: 8 * MB, minAspect: 4 / 5 - 0.005, maxAspect: 1.91 + 0.005 },
            video: { maxBytes: 1 * GB, minDurationSec: 3, maxDurationSec: 15 * 60 },
          };
    case 'facebook':
      return story
        ? {
            image: { maxBytes: 10 * MB, compressAbove: 10 * MB, minWidth: 500, minHeight: 500 },
            video: { maxBytes: 4 * GB, compressAbove: 4 * GB, minDurationSec: 1, maxDurationSec: 120 },
          }
        : {
            image: { maxBytes: 10 * MB, compressAbove: 10 * MB, minWidth: 200, minHeight: 200 },
            video: { maxBytes: 4 * GB, compressAbove: 4 * GB, minDurationSec: 1, maxDurationSec: 240 * 60 },
          };
    case 'bluesky':
      // Blobs are capped at 1,000,000 bytes by the lexicon: larger images are shrunk like X's.
      return {
        image: { maxBytes: 1_000_000, compressAbove: 1_000_000, maxLongSide: 2000, maxShortSide: 2000 },
        video: { maxBytes: 50 * MB, maxDurationSec: 60, maxLongSide: 1920, maxShortSide: 1080 },
      };
    case 'googlebusiness':
      return { image: { maxBytes: 5 * MB, minWidth: 250, minHeight: 250 } };
    case 'linkedin':
      return {
        image: { maxPixels: 36_152_320 },
        video: { maxBytes: 500 * MB, minDurationSec: 3, maxDurationSec: 30 * 60 },
        document: { maxBytes: 100 * MB },
      };
    case 'tiktok':
      return { image: { maxBytes: 20 * MB }, video: { maxBytes: 4 * GB } };
    case 'youtube':
      return { video: { maxBytes: 256 * GB, maxDurationSec: 12 * 3600 } };
    case 'pinterest':
      return { image: { maxBytes: 20 * MB }, video: { maxBytes: 2 * GB, minDurationSec: 4, maxDurationSec: 15 * 60 } };
    case 'threads':
      return { image: { maxBytes: 8 * MB }, video: { maxBytes: 1 * GB, maxDurationSec: 5 * 60 } };
    case 'telegram':
      // Uploaded by Herald (multipart): photos 10 MB, other files 50 MB.
      return { image: { maxBytes: 10 * MB, maxWidthPlusHeight: 10_000 }, video: { maxBytes: 50 * MB }, document: { maxBytes: 50 * MB } };
    case 'snapchat':
      return { image: { maxBytes: 20 * MB }, video: { maxBytes: 500 * MB, minDurationSec: 5, maxDurationSec: 60, minWidth: 540, minHeight: 960 } };
    default:
      return {};
  }
}
