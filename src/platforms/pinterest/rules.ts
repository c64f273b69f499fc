import { countKinds, httpUrl, int, issue, str, type FieldCheck, described } from '../rules/helpers.js';
import { GB, MB } from '../rules/media-limits.js';
import { characters } from '../rules/text.js';
import type { RuleIssue, TargetRule, TextRule } from '../rules/types.js';

/*
 * Pinterest's rules for a target (https://developers.pinterest.com/docs/api/v5/pins-create, OpenAPI
 * `PinCreate`): the text is the description, at most 800 characters; title at most 100; link at most
 * 2,048; an image (up to 5) or one video; boards have numeric ids.
 */

export const DESCRIPTION: TextRule = characters(800);

export const PLATFORM_SPECIFIC_DATA: Record<string, FieldCheck> = {
  title: str(100),
  boardId: described((v) => (typeof v === 'string' && /^\d+$/.test(v) ? null : 'must be a numeric board id'), {
    type: 'string',
    pattern: '^\\d+$',
  }),
  link: described((v) => str(2048)(v) ?? httpUrl(v), { type: 'string', format: 'uri', maxLength: 2048 }),
  coverImageUrl: httpUrl,
  coverImageKeyFrameTime: int(0),
};

export const checkTarget: TargetRule = (t) => {
  const issues: RuleIssue[] = [];
  const c = countKinds(t.media);
  if (t.media.length === 0) issues.push(issue('mediaItems', 'media_required', 'Pinterest needs an image or a video'));
  if (t.media.length > 5) issues.push(issue('mediaItems', 'media_count', 'at most 5 media items'));
  if (c.video && t.media.length > 1) issues.push(issue('mediaItems', 'media_mix', 'a video pin takes one video'));
  if (c.document) issues.push(issue('mediaItems', 'media_type', 'documents are not supported'));
  return issues;
};

/** Images up to 20 MB; videos up to 2 GB, 4 seconds to 15 minutes (https://help.pinterest.com/en/business/article/video-pins). */
export const mediaLimits = () => ({
  image: { maxBytes: 20 * MB },
  video: { maxBytes: 2 * GB, minDurationSec: 4, maxDurationSec: 15 * 60 },
});
