import { checkFields, countKinds, issue, textLimit, threadItemsCheck, threadTexts } from './helpers.js';
import { threadsLength } from './text.js';
import type { PlatformRules, RuleIssue } from './types.js';

// Threads: 500 characters, emojis counted as their UTF-8 bytes; a carousel holds up to 20 items (platforms.md).
export const threadsRules: PlatformRules = {
  platform: 'threads',
  check(t) {
    const issues: RuleIssue[] = [
      ...textLimit(t.content, threadsLength(t.content), 500),
      ...checkFields(t.platformSpecificData, { threadItems: threadItemsCheck }),
    ];
    threadTexts(t).forEach((text, i) =>
      issues.push(...textLimit(text, threadsLength(text), 500, 'characters', `platformSpecificData.threadItems.${i}.content`)),
    );
    if (t.media.length > 20) issues.push(issue('mediaItems', 'media_count', `at most 20 media items (got ${t.media.length})`));
    if (countKinds(t.media).document) issues.push(issue('mediaItems', 'media_type', 'documents are not supported'));
    return issues;
  },
};
