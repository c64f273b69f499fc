import { bool, checkFields, countKinds, issue, str, textLimit } from './helpers.js';
import type { PlatformRules, RuleIssue } from './types.js';

// LinkedIn: commentary <= 3,000 characters; up to 20 images, or 1 video, or 1 document (PDF).
export const linkedinRules: PlatformRules = {
  platform: 'linkedin',
  check(t) {
    const issues: RuleIssue[] = [
      ...textLimit(t.content, [...t.content].length, 3000),
      ...checkFields(t.platformSpecificData, {
        organizationUrn: (v) => (typeof v === 'string' && /^urn:li:organization:\d+$/.test(v) ? null : 'must be urn:li:organization:<id>'),
        firstComment: str(1250),
        disableLinkPreview: bool,
        documentTitle: str(400),
      }),
    ];
    const c = countKinds(t.media);
    const kinds = [c.image + c.gif, c.video, c.document].filter((n) => n > 0).length;
    if (kinds > 1) issues.push(issue('mediaItems', 'media_mix', 'images, a video and a document cannot be combined'));
    if (c.image + c.gif > 20) issues.push(issue('mediaItems', 'media_count', 'at most 20 images'));
    if (c.video > 1) issues.push(issue('mediaItems', 'media_count', 'at most 1 video'));
    if (c.document > 1) issues.push(issue('mediaItems', 'media_count', 'at most 1 document'));
    return issues;
  },
};
