import type { PlatformDescriptor } from '../descriptor.js';
import { bool, countKinds, int, issue, oneOf, str } from '../rules/helpers.js';
import { GB, MB } from '../rules/media-limits.js';
import { characters } from '../rules/text.js';
import type { RuleIssue } from '../rules/types.js';

// TikTok: one video, or a photo carousel of up to 35 images; caption <= 2,200 characters (platforms.md). No adapter yet.
export const tiktok: PlatformDescriptor<'tiktok'> = {
  id: 'tiktok',
  name: 'TikTok',
  text: [characters(2200)],
  platformSpecificData: {
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
  },
  check(t) {
    const issues: RuleIssue[] = [];
    const c = countKinds(t.media);
    if (t.media.length === 0) issues.push(issue('mediaItems', 'media_required', 'TikTok needs a video or photos'));
    if (c.video && t.media.length > 1) issues.push(issue('mediaItems', 'media_mix', 'a video post takes exactly one video'));
    if (c.image + c.gif > 35) issues.push(issue('mediaItems', 'media_count', 'at most 35 photos'));
    if (c.document) issues.push(issue('mediaItems', 'media_type', 'documents are not supported'));
    return issues;
  },
  mediaLimits: () => ({ image: { maxBytes: 20 * MB }, video: { maxBytes: 4 * GB } }),
  accountMetadata: [],
  postSettings: 'tiktokSettings',
  scopes: [],
  capabilities: { connect: 'oauth2' },
};
