import { bool, checkFields, issue, oneOf, textLimit } from './helpers.js';
import type { PlatformRules, RuleIssue } from './types.js';

// Telegram: a message <= 4,096 characters, a media caption <= 1,024; an album holds up to 10 items.
export const telegramRules: PlatformRules = {
  platform: 'telegram',
  check(t) {
    const length = [...t.content].length;
    const issues: RuleIssue[] = [
      ...textLimit(t.content, length, t.media.length ? 1024 : 4096),
      ...checkFields(t.platformSpecificData, {
        parseMode: oneOf('HTML', 'Markdown', 'MarkdownV2'),
        disableWebPagePreview: bool,
        disableNotification: bool,
        protectContent: bool,
      }),
    ];
    if (t.media.length > 10) issues.push(issue('mediaItems', 'media_count', 'at most 10 media items'));
    return issues;
  },
};
