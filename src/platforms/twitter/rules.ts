import { countKinds, issue, oneOf, str, threadItemsCheck } from '../rules/helpers.js';
import { GB, MB, type PlatformMediaLimits } from '../rules/media-limits.js';
import type { RuleIssue, TargetDraft, TextRule } from '../rules/types.js';
import { TWEET_MAX_WEIGHTED_LENGTH, tweetLength } from './count.js';

/*
 * X's rules, used by validation (through the descriptor) and by the adapter alike: 280 weighted
 * characters; up to 4 photos, or 1 GIF, or 1 video (platforms.md, X limits).
 */

export const REPLY_SETTINGS = ['following', 'mentionedUsers', 'subscribers', 'verified'] as const;

export const TEXT: TextRule = { unit: 'weighted characters', limit: TWEET_MAX_WEIGHTED_LENGTH, count: tweetLength };

export const PLATFORM_SPECIFIC_DATA = {
  threadItems: threadItemsCheck,
  replyToTweetId: str(),
  replySettings: oneOf(...REPLY_SETTINGS),
};

export function checkTarget(t: TargetDraft): RuleIssue[] {
  const issues: RuleIssue[] = [];
  const c = countKinds(t.media);
  if (c.image > 4) issues.push(issue('mediaItems', 'media_count', `at most 4 images (got ${c.image})`));
  if (c.video + c.gif > 1 || ((c.video || c.gif) && c.image)) {
    issues.push(issue('mediaItems', 'media_mix', 'up to 4 images, or 1 GIF, or 1 video'));
  }
  if (c.document) issues.push(issue('mediaItems', 'media_type', 'documents are not supported'));
  return issues;
}

/** https://docs.x.com/x-api/media/quickstart/best-practices : images 5 MB (GIF 15 MB), video 0.5 s-20 min. */
export function mediaLimits(): PlatformMediaLimits {
  return {
    image: { maxBytes: 5 * MB, compressAbove: 5 * MB },
    video: { maxBytes: 8 * GB, compressAbove: 512 * MB, minDurationSec: 0.5, maxDurationSec: 20 * 60 },
  };
}
