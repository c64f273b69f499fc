import { descriptorOf } from '../../platforms/catalogue.js';
import type { PlatformMediaLimits } from '../../platforms/rules/media-limits.js';

export type { KindLimits, PlatformMediaLimits } from '../../platforms/rules/media-limits.js';

/**
 * A platform's media limits (its catalogue descriptor): the spec's "Per-platform media and text limits"
 * table first, then the platform notes of the reference (platforms.md). Counts, mixing and formats are
 * checked by the descriptor's validation rules; these are the facts only the bytes can tell.
 */
export function mediaLimits(platform: string, psd: Record<string, unknown> = {}): PlatformMediaLimits {
  return descriptorOf(platform)?.mediaLimits(psd) ?? {};
}
