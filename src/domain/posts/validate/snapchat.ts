import { checkFields, countKinds, issue, oneOf, textLimit } from './helpers.js';
import type { PlatformRules, RuleIssue } from './types.js';

// Snapchat: exactly one image or video, no text-only posts; a spotlight description <= 160 (platforms.md).
export const snapchatRules: PlatformRules = {
  platform: 'snapchat',
  check(t) {
    const issues: RuleIssue[] = [
      ...textLimit(t.content, [...t.content].length, 160),
      ...checkFields(t.platformSpecificData, { contentType: oneOf('story', 'saved_story', 'spotlight') }),
    ];
    const c = countKinds(t.media);
    if (t.media.length !== 1 || c.document) issues.push(issue('mediaItems', 'media_required', 'Snapchat needs exactly one image or video'));
    if (t.platformSpecificData.contentType === 'spotlight' && c.video !== 1) {
      issues.push(issue('mediaItems', 'spotlight_media', 'a spotlight needs a video'));
    }
    return issues;
  },
};
