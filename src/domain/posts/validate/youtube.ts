import { bool, checkFields, countKinds, issue, oneOf, str, textLimit } from './helpers.js';
import { utf8Length } from './text.js';
import type { PlatformRules, RuleIssue } from './types.js';

// YouTube: exactly one video; title <= 100 characters; description <= 5,000 bytes (platforms.md).
export const youtubeRules: PlatformRules = {
  platform: 'youtube',
  check(t) {
    const issues: RuleIssue[] = [
      ...textLimit(t.content, utf8Length(t.content), 5000, 'bytes'),
      ...checkFields(t.platformSpecificData, {
        title: (v) => str(100)(v) ?? (/[<>]/.test(String(v)) ? 'must not contain < or >' : null),
        visibility: oneOf('public', 'private', 'unlisted'),
        madeForKids: bool,
        firstComment: str(10000),
        containsSyntheticMedia: bool,
        categoryId: str(),
      }),
    ];
    const c = countKinds(t.media);
    if (c.video !== 1 || t.media.length !== 1) issues.push(issue('mediaItems', 'media_required', 'YouTube needs exactly one video'));
    return issues;
  },
};
