import { bool, countKinds, issue, str, described } from '../rules/helpers.js';
import { MB, type PlatformMediaLimits } from '../rules/media-limits.js';
import { utf16Length } from '../rules/text.js';
import type { RuleIssue, TargetDraft, TextRule } from '../rules/types.js';

/*
 * LinkedIn's rules, used by validation (through the descriptor) and by the adapter alike. Commentary is
 * at most 3,000 characters as LinkedIn's (Java) API counts them: UTF-16 units of the text as written,
 * so an emoji outside the Basic Multilingual Plane counts 2. Up to 20 images, or 1 video, or 1 document.
 */

export const TEXT: TextRule = { unit: 'characters (UTF-16 units)', limit: 3000, count: utf16Length };
export const MAX_IMAGES = 20;

export const PLATFORM_SPECIFIC_DATA = {
  organizationUrn: described(
    (v: unknown) =>
      typeof v === 'string' && /^urn:li:organization:\d+$/.test(v) ? null : 'must be urn:li:organization:<id>',
    { type: 'string', pattern: '^urn:li:organization:\\d+$' },
  ),
  firstComment: str(1250),
  disableLinkPreview: bool,
  documentTitle: str(400),
};

export function checkTarget(t: TargetDraft): RuleIssue[] {
  const issues: RuleIssue[] = [];
  const c = countKinds(t.media);
  const kinds = [c.image + c.gif, c.video, c.document].filter((n) => n > 0).length;
  if (kinds > 1) issues.push(issue('mediaItems', 'media_mix', 'images, a video and a document cannot be combined'));
  if (c.image + c.gif > MAX_IMAGES) issues.push(issue('mediaItems', 'media_count', `at most ${MAX_IMAGES} images`));
  if (c.video > 1) issues.push(issue('mediaItems', 'media_count', 'at most 1 video'));
  if (c.document > 1) issues.push(issue('mediaItems', 'media_count', 'at most 1 document'));
  return issues;
}

export function mediaLimits(): PlatformMediaLimits {
  return {
    image: { maxPixels: 36_152_320 },
    video: { maxBytes: 500 * MB, minDurationSec: 3, maxDurationSec: 30 * 60 },
    document: { maxBytes: 100 * MB },
  };
}
