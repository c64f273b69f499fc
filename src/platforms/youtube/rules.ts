import { countKinds, issue, type FieldCheck, bool, oneOf, str, described } from '../rules/helpers.js';
import { GB } from '../rules/media-limits.js';
import { utf8Length } from '../rules/text.js';
import type { MediaShape } from '../descriptor.js';
import type { RuleIssue, TargetRule, TextRule } from '../rules/types.js';

/*
 * YouTube's rules for a target (https://developers.google.com/youtube/v3/docs/videos#resource): exactly one
 * video; the text is the description, at most 5,000 bytes; title at most 100 characters; neither may hold
 * `<` or `>`; tags 500 characters in all; publishAt only for a private video.
 */

/** snippet.description: at most 5,000 bytes of UTF-8. */
export const DESCRIPTION: TextRule = { unit: 'bytes', limit: 5000, count: utf8Length };

const noAngles = (v: unknown) => (/[<>]/.test(String(v)) ? 'must not contain < or >' : null);

/** Tags count their characters, plus quotes around a tag with a space, plus a comma between tags. */
function tagsLength(tags: string[]): number {
  return tags.reduce((n, t) => n + [...t].length + (/\s/.test(t) ? 2 : 0), 0) + Math.max(0, tags.length - 1);
}

const tags: FieldCheck = described(
  (v) => {
    if (!Array.isArray(v) || v.some((t) => typeof t !== 'string' || !t.trim()))
      return 'must be an array of non-empty strings';
    if (v.some((t) => /[<>]/.test(t))) return 'must not contain < or >';
    return tagsLength(v) > 500
      ? 'must be at most 500 characters in all (a tag with a space counts its quotes, and tags a comma each)'
      : null;
  },
  { type: 'array', items: { type: 'string', minLength: 1 } },
);

const dateTime: FieldCheck = described(
  (v) =>
    typeof v === 'string' &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(v) &&
    !Number.isNaN(Date.parse(v))
      ? null
      : 'must be an ISO 8601 date-time with a zone',
  { type: 'string', format: 'date-time' },
);

export const PLATFORM_SPECIFIC_DATA: Record<string, FieldCheck> = {
  title: described((v) => str(100)(v) ?? noAngles(v), { type: 'string', maxLength: 100 }),
  visibility: oneOf('public', 'private', 'unlisted'),
  madeForKids: bool,
  firstComment: str(10000),
  containsSyntheticMedia: bool,
  categoryId: described(
    (v) => (typeof v === 'string' && /^\d+$/.test(v) ? null : 'must be a YouTube video category id, e.g. "22"'),
    { type: 'string', pattern: '^\\d+$' },
  ),
  tags,
  publishAt: dateTime,
};

export const checkTarget: TargetRule = (t) => {
  const issues: RuleIssue[] = [];
  const c = countKinds(t.media);
  if (c.video !== 1 || t.media.length !== 1)
    issues.push(issue('mediaItems', 'media_required', 'YouTube needs exactly one video'));
  if (/[<>]/.test(t.content))
    issues.push(issue('content', 'invalid_characters', 'a YouTube description must not contain < or >'));
  const psd = t.platformSpecificData;
  if (psd.publishAt !== undefined && psd.visibility !== 'private') {
    issues.push(
      issue(
        'platformSpecificData.publishAt',
        'publish_at_needs_private',
        'publishAt schedules a private video: set visibility to "private"',
      ),
    );
  }
  if (psd.madeForKids === true && psd.firstComment) {
    issues.push(
      issue(
        'platformSpecificData.firstComment',
        'comments_disabled',
        'YouTube turns comments off on videos made for kids',
      ),
    );
  }
  return issues;
};

/** 256 GB or 12 hours per video (https://support.google.com/youtube/answer/71673). */
export const mediaLimits = () => ({ video: { maxBytes: 256 * GB, maxDurationSec: 12 * 3600 } });

/**
 * A vertical or square video of at most 3 minutes is a Short (YouTube Help, "Upload YouTube Shorts"):
 * YouTube decides from the file, and the API has no flag for it, so Herald says so when it can tell.
 */
export function warnings(_t: unknown, shapes: MediaShape[]): string[] {
  const [shape] = shapes;
  if (shapes.length !== 1 || !shape?.width || !shape.height || shape.durationSec === null) return [];
  if (shape.height >= shape.width && shape.durationSec <= 180) {
    return [
      `this ${shape.width}x${shape.height} video of ${shape.durationSec.toFixed(1)} s is vertical or square and at most 3 minutes: YouTube will publish it as a Short`,
    ];
  }
  return [];
}
