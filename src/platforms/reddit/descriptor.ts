import type { PlatformDescriptor } from '../descriptor.js';
import { bool, httpUrl, issue, str } from '../rules/helpers.js';
import { characters } from '../rules/text.js';
import type { RuleIssue } from '../rules/types.js';

// Reddit: title <= 300; self text <= 40,000; one link or media item per post (platforms.md). No adapter yet.
export const reddit: PlatformDescriptor<'reddit'> = {
  id: 'reddit',
  name: 'Reddit',
  text: [characters(40000)],
  platformSpecificData: {
    subreddit: (v) => (typeof v === 'string' && /^(r\/)?[A-Za-z0-9_]{2,21}$/.test(v) ? null : 'must be a subreddit name'),
    title: str(300),
    url: httpUrl,
    forceSelf: bool,
    flairId: str(),
  },
  check(t) {
    const issues: RuleIssue[] = [];
    if (t.media.length > 1) issues.push(issue('mediaItems', 'media_count', 'at most 1 media item'));
    return issues;
  },
  mediaLimits: () => ({}),
  accountMetadata: [],
  scopes: [],
  capabilities: { connect: 'oauth2', unpublish: true },
};
