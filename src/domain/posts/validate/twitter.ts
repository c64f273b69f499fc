import { checkFields, countKinds, issue, oneOf, str, textLimit, threadItemsCheck, threadTexts } from './helpers.js';
import { xWeightedLength } from './text.js';
import type { PlatformRules, RuleIssue } from './types.js';

// X: 280 weighted characters; up to 4 photos, or 1 GIF, or 1 video (platforms.md, X limits).
const LIMIT = 280;

export const twitterRules: PlatformRules = {
  platform: 'twitter',
  check(t) {
    const issues: RuleIssue[] = [
      ...textLimit(t.content, xWeightedLength(t.content), LIMIT, 'weighted characters'),
      ...checkFields(t.platformSpecificData, {
        threadItems: threadItemsCheck,
        replyToTweetId: str(),
        replySettings: oneOf('following', 'mentionedUsers', 'subscribers', 'verified'),
      }),
    ];
    threadTexts(t).forEach((text, i) =>
      issues.push(...textLimit(text, xWeightedLength(text), LIMIT, 'weighted characters', `platformSpecificData.threadItems.${i}.content`)),
    );
    const c = countKinds(t.media);
    if (c.image > 4) issues.push(issue('mediaItems', 'media_count', `at most 4 images (got ${c.image})`));
    if (c.video + c.gif > 1 || ((c.video || c.gif) && c.image)) {
      issues.push(issue('mediaItems', 'media_mix', 'up to 4 images, or 1 GIF, or 1 video'));
    }
    if (c.document) issues.push(issue('mediaItems', 'media_type', 'documents are not supported'));
    return issues;
  },
};
