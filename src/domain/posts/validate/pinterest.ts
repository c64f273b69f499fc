import { checkFields, countKinds, httpUrl, int, issue, str, textLimit } from './helpers.js';
import type { PlatformRules, RuleIssue } from './types.js';

// Pinterest: description <= 800 characters; an image or a video (<= 5 media); title <= 100; link <= 2048.
export const pinterestRules: PlatformRules = {
  platform: 'pinterest',
  check(t) {
    const issues: RuleIssue[] = [
      ...textLimit(t.content, [...t.content].length, 800),
      ...checkFields(t.platformSpecificData, {
        title: str(100),
        boardId: (v) => (typeof v === 'string' && /^\d+$/.test(v) ? null : 'must be a numeric board id'),
        link: (v) => str(2048)(v) ?? httpUrl(v),
        coverImageUrl: httpUrl,
        coverImageKeyFrameTime: int(0),
      }),
    ];
    const c = countKinds(t.media);
    if (t.media.length === 0) issues.push(issue('mediaItems', 'media_required', 'Pinterest needs an image or a video'));
    if (t.media.length > 5) issues.push(issue('mediaItems', 'media_count', 'at most 5 media items'));
    if (c.video && t.media.length > 1) issues.push(issue('mediaItems', 'media_mix', 'a video pin takes one video'));
    if (c.document) issues.push(issue('mediaItems', 'media_type', 'documents are not supported'));
    return issues;
  },
};
