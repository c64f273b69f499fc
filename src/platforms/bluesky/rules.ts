import { countKinds, described, formatRule, issue, threadItemsCheck } from '../rules/helpers.js';
import type { PlatformMediaLimits } from '../rules/media-limits.js';
import { graphemeLength, utf8Length } from '../rules/text.js';
import type { RuleIssue, TargetDraft, TextRule } from '../rules/types.js';

/*
 * Bluesky's limits, in one place: validation (through the descriptor), media limits and the adapter
 * all read them here. Text from the app.bsky.feed.post lexicon; media from app.bsky.embed.images and
 * app.bsky.embed.video.
 */

export const TEXT: readonly TextRule[] = [
  { unit: 'graphemes', limit: 300, count: graphemeLength },
  { unit: 'bytes', limit: 3000, count: utf8Length },
];
export const MAX_IMAGES = 4;
export const MAX_IMAGE_BYTES = 1_000_000;
export const MAX_VIDEO_BYTES = 50 * 1024 * 1024;
/** Alt text, in graphemes. */
export const MAX_ALT = 1000;
export const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'];

/**
 * A post's languages (the record's `langs`, app.bsky.feed.post): at most 3 BCP-47 tags. Feed generators
 * filter on them. https://docs.bsky.app/docs/advanced-guides/post-richtext#languages
 */
export const MAX_LANGS = 3;
const LANG_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;

/** Null when `v` is 1-3 BCP-47 tags (`pt`, `en-US`), else what is wrong. */
export function langsProblem(v: unknown): string | null {
  if (!Array.isArray(v) || v.length < 1 || v.length > MAX_LANGS) return `must be 1-${MAX_LANGS} language codes`;
  const bad = v.find((x) => typeof x !== 'string' || !LANG_TAG.test(x));
  return bad === undefined ? null : `${JSON.stringify(bad)} is not a BCP-47 language code such as "pt" or "en-US"`;
}

const langsCheck = described(langsProblem, {
  type: 'array',
  minItems: 1,
  maxItems: MAX_LANGS,
  items: { type: 'string', pattern: LANG_TAG.source },
});

export const PLATFORM_SPECIFIC_DATA = { threadItems: threadItemsCheck, langs: langsCheck };

export function checkTarget(t: TargetDraft): RuleIssue[] {
  const issues: RuleIssue[] = [
    ...formatRule(t, 'image', ['jpeg', 'png', 'webp', 'gif']),
    ...formatRule(t, 'video', ['mp4']),
  ];
  const c = countKinds(t.media);
  const images = c.image + c.gif;
  if (images > MAX_IMAGES)
    issues.push(issue('mediaItems', 'media_count', `at most ${MAX_IMAGES} images (got ${images})`));
  if (c.video > 1) issues.push(issue('mediaItems', 'media_count', `at most 1 video (got ${c.video})`));
  if (c.video && images) issues.push(issue('mediaItems', 'media_mix', 'images and a video cannot be combined'));
  if (c.document) issues.push(issue('mediaItems', 'media_type', 'documents are not supported'));
  t.media.forEach((m, i) => {
    if (m.altText && graphemeLength(m.altText) > MAX_ALT) {
      issues.push(issue(`mediaItems.${i}.altText`, 'alt_text_length', `alt text is limited to ${MAX_ALT} characters`));
    }
  });
  return issues;
}

/** Larger images are shrunk (compressAbove) to fit the blob limit, like X's. */
export function mediaLimits(): PlatformMediaLimits {
  return {
    image: { maxBytes: MAX_IMAGE_BYTES, compressAbove: MAX_IMAGE_BYTES, maxLongSide: 2000, maxShortSide: 2000 },
    video: { maxBytes: MAX_VIDEO_BYTES, maxDurationSec: 60, maxLongSide: 1920, maxShortSide: 1080 },
  };
}
