import { arrayOf, bool, checkFields, countKinds, hashtagLimit, int, issue, object, oneOf, str, textLimit, type FieldCheck } from './helpers.js';
import type { PlatformRules, RuleIssue } from './types.js';

// Instagram: media is required; caption <= 2,200 characters and <= 30 hashtags; a carousel holds up to 10
// items; a story is one item (platforms.md, Instagram limits; spec platformSpecificData table).
const unit: FieldCheck = (v) => (typeof v === 'number' && v >= 0 && v <= 1 ? null : 'must be a number between 0 and 1');

export const instagramRules: PlatformRules = {
  platform: 'instagram',
  check(t) {
    const psd = t.platformSpecificData;
    const issues: RuleIssue[] = [
      ...textLimit(t.content, [...t.content].length, 2200),
      ...hashtagLimit(t.content, 30),
      ...checkFields(psd, {
        contentType: oneOf('story'),
        shareToFeed: bool,
        collaborators: arrayOf(str(), 3),
        firstComment: str(2200),
        userTags: arrayOf(object({ username: str(), x: unit, y: unit, mediaIndex: int(0) }, ['username', 'x', 'y'])),
        thumbOffset: int(0),
        audioName: str(),
        trialParams: object({ graduationStrategy: oneOf('MANUAL', 'SS_PERFORMANCE') }, ['graduationStrategy']),
      }),
    ];
    if (t.media.length === 0) issues.push(issue('mediaItems', 'media_required', 'Instagram needs at least one image or video'));
    if (psd.contentType === 'story' && t.media.length > 1) issues.push(issue('mediaItems', 'story_media', 'a story takes one media item'));
    if (t.media.length > 10) issues.push(issue('mediaItems', 'media_count', `at most 10 carousel items (got ${t.media.length})`));
    if (countKinds(t.media).document) issues.push(issue('mediaItems', 'media_type', 'documents are not supported'));
    return issues;
  },
};
