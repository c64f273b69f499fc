import { bool, checkFields, httpUrl, issue, str, textLimit } from './helpers.js';
import type { PlatformRules, RuleIssue } from './types.js';

// Reddit: title <= 300; self text <= 40,000; one link or media item per post (platforms.md).
export const redditRules: PlatformRules = {
  platform: 'reddit',
  check(t) {
    const issues: RuleIssue[] = [
      ...textLimit(t.content, [...t.content].length, 40000),
      ...checkFields(t.platformSpecificData, {
        subreddit: (v) => (typeof v === 'string' && /^(r\/)?[A-Za-z0-9_]{2,21}$/.test(v) ? null : 'must be a subreddit name'),
        title: str(300),
        url: httpUrl,
        forceSelf: bool,
        flairId: str(),
      }),
    ];
    if (t.media.length > 1) issues.push(issue('mediaItems', 'media_count', 'at most 1 media item'));
    return issues;
  },
};
