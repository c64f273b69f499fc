import type { MediaKind } from '../../domain/media/types.js';

export const MB = 1024 * 1024;
export const GB = 1024 * MB;

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
  /**
   * The platform takes images as JPEG only (Instagram refuses a PNG at `image_url`): Herald converts any
   * other still image (PNG, WebP, ...) into a JPEG derived copy for it, served from its own publicUrl.
   */
  jpegOnly?: boolean;
}

export type PlatformMediaLimits = Partial<Record<MediaKind, KindLimits>>;
