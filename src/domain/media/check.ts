import { mediaLimits, type KindLimits } from './limits.js';
import type { MediaKind, MediaProbe } from './types.js';

/** What Herald knows about one media item (from its upload record, or a HEAD of an external URL). */
export interface MediaFacts {
  kind: MediaKind;
  contentType: string | null;
  size: number | null;
  probe: MediaProbe | null;
  /** Whether Herald can compress it: uploads, and external images (downloaded); never external videos. */
  local: boolean;
}

export interface MediaIssue {
  rule: string;
  message: string;
}

const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(n < 10 * 1024 * 1024 ? 1 : 0)} MB`;

/** Whether this item will be compressed into a derived file for the platform. */
export function needsCompression(facts: MediaFacts, limits: KindLimits | undefined): boolean {
  if (facts.local && limits && needsJpeg(facts, limits)) return true;
  if (!facts.local || !limits?.compressAbove || facts.size === null) return false;
  if (facts.kind === 'image' && facts.probe?.format === 'gif') return false;
  if (facts.kind === 'image' && (limits.maxLongSide || limits.maxShortSide) && exceedsBox(facts.probe, limits))
    return true;
  return facts.size > limits.compressAbove;
}

/** A still image that is not a JPEG, for a platform that takes JPEG only: converted (GIFs are refused at creation). */
function needsJpeg(facts: MediaFacts, limits: KindLimits): boolean {
  if (facts.kind !== 'image' || !limits.jpegOnly) return false;
  const format =
    facts.probe?.format ?? (facts.contentType === 'image/jpeg' ? 'jpeg' : facts.contentType?.replace(/^image\//, ''));
  return format !== 'jpeg' && format !== 'gif';
}

function exceedsBox(p: MediaProbe | null, l: KindLimits): boolean {
  if (!p?.width || !p.height) return false;
  const long = Math.max(p.width, p.height);
  const short = Math.min(p.width, p.height);
  return (
    (l.maxLongSide !== undefined && long > l.maxLongSide) || (l.maxShortSide !== undefined && short > l.maxShortSide)
  );
}

/**
 * Checks one item against a platform's limits. A size or box above a compression threshold is fine for
 * uploads (compressed before publishing); videos need ffmpeg for that (`canCompressVideo`).
 */
export function checkMedia(
  platform: string,
  psd: Record<string, unknown>,
  facts: MediaFacts,
  canCompressVideo: boolean,
): MediaIssue[] {
  const limits = mediaLimits(platform, psd)[facts.kind];
  if (!limits) return [];
  const issues: MediaIssue[] = [];
  const p = facts.probe;
  const compressible = needsCompression(facts, limits) && (facts.kind === 'image' || canCompressVideo);
  if (facts.size !== null && limits.maxBytes !== undefined && facts.size > limits.maxBytes && !compressible) {
    const why =
      facts.kind === 'video' && facts.local && limits.compressAbove && !canCompressVideo
        ? ' (ffmpeg is not installed to compress it)'
        : '';
    issues.push({
      rule: 'media_size',
      message: `${facts.kind} is ${mb(facts.size)}; ${platform} accepts at most ${mb(limits.maxBytes)}${why}`,
    });
  }
  if (
    facts.size !== null &&
    limits.maxBytes === undefined &&
    limits.compressAbove &&
    facts.size > limits.compressAbove &&
    !compressible
  ) {
    issues.push({
      rule: 'media_size',
      message: `${facts.kind} is ${mb(facts.size)}; ${platform} accepts at most ${mb(limits.compressAbove)}`,
    });
  }
  if (p?.width && p.height) {
    const { width: w, height: h } = p;
    if ((limits.minWidth && w < limits.minWidth) || (limits.minHeight && h < limits.minHeight)) {
      issues.push({
        rule: 'media_dimensions',
        message: `${facts.kind} is ${w}x${h} px; ${platform} needs at least ${limits.minWidth ?? 0}x${limits.minHeight ?? 0} px`,
      });
    }
    if (exceedsBox(p, limits) && !(facts.kind === 'image' && facts.local && limits.compressAbove)) {
      issues.push({
        rule: 'media_dimensions',
        message: `${facts.kind} is ${w}x${h} px; ${platform} accepts at most ${limits.maxLongSide}x${limits.maxShortSide} px`,
      });
    }
    if (limits.maxPixels && w * h > limits.maxPixels) {
      issues.push({
        rule: 'media_dimensions',
        message: `${facts.kind} has ${w * h} pixels; ${platform} accepts at most ${limits.maxPixels}`,
      });
    }
    if (limits.maxWidthPlusHeight && w + h > limits.maxWidthPlusHeight) {
      issues.push({
        rule: 'media_dimensions',
        message: `${facts.kind} width + height is ${w + h} px; ${platform} accepts at most ${limits.maxWidthPlusHeight}`,
      });
    }
    const aspect = w / h;
    if ((limits.minAspect && aspect < limits.minAspect) || (limits.maxAspect && aspect > limits.maxAspect)) {
      issues.push({
        rule: 'media_aspect',
        message: `${facts.kind} aspect ratio ${aspect.toFixed(2)} is outside ${platform}'s 4:5 to 1.91:1`,
      });
    }
  }
  if (p?.durationSec !== null && p?.durationSec !== undefined) {
    const d = p.durationSec;
    if (limits.minDurationSec !== undefined && d < limits.minDurationSec) {
      issues.push({
        rule: 'media_duration',
        message: `video lasts ${d.toFixed(1)} s; ${platform} needs at least ${limits.minDurationSec} s`,
      });
    }
    if (limits.maxDurationSec !== undefined && d > limits.maxDurationSec) {
      issues.push({
        rule: 'media_duration',
        message: `video lasts ${d.toFixed(1)} s; ${platform} accepts at most ${limits.maxDurationSec} s`,
      });
    }
  }
  return issues;
}
