import { bool, checkFields, countKinds, int, issue, oneOf, str, textLimit } from './helpers.js';
import type { PlatformRules, RuleIssue } from './types.js';

// TikTok: one video, or a photo carousel of up to 35 images; caption <= 2,200 characters (platforms.md).
export const tiktokRules: PlatformRules = {
  platform: 'tiktok',
  check(t) {
    const issues: RuleIssue[] = [
      ...textLimit(t.content, [...t.content].length, 2200),
      ...checkFields(t.platformSpecificData, {
        draft: bool,
        privacyLevel: str(),
        allowComment: bool,
        allowDuet: bool,
        allowStitch: bool,
        commercialContentType: oneOf('none', 'brand_organic', 'brand_content'),
        brandPartnerPromote: bool,
        isBrandOrganicPost: bool,
        contentPreviewConfirmed: bool,
        expressConsentGiven: bool,
        mediaType: oneOf('video', 'photo'),
        videoCoverTimestampMs: int(0),
        photoCoverIndex: int(0),
        autoAddMusic: bool,
        videoMadeWithAi: bool,
        description: str(4000),
      }),
    ];
    const c = countKinds(t.media);
    if (t.media.length === 0) issues.push(issue('mediaItems', 'media_required', 'TikTok needs a video or photos'));
    if (c.video && t.media.length > 1) issues.push(issue('mediaItems', 'media_mix', 'a video post takes exactly one video'));
    if (c.image + c.gif > 35) issues.push(issue('mediaItems', 'media_count', 'at most 35 photos'));
    if (c.document) issues.push(issue('mediaItems', 'media_type', 'documents are not supported'));
    return issues;
  },
};
