import type { PlatformDescriptor } from '../descriptor.js';
import { arrayOf, bool, countKinds, hashtagLimit, int, issue, object, oneOf, str, type FieldCheck } from '../rules/helpers.js';
import { GB, MB } from '../rules/media-limits.js';
import { characters } from '../rules/text.js';
import type { RuleIssue } from '../rules/types.js';

// Instagram: media is required; caption <= 2,200 characters and <= 30 hashtags; a carousel holds up to 10
// items; a story is one item (platforms.md, Instagram limits; spec platformSpecificData table). No adapter yet.
const unit: FieldCheck = (v) => (typeof v === 'number' && v >= 0 && v <= 1 ? null : 'must be a number between 0 and 1');

export const instagram: PlatformDescriptor<'instagram'> = {
  id: 'instagram',
  name: 'Instagram',
  text: [characters(2200)],
  platformSpecificData: {
    contentType: oneOf('story'),
    shareToFeed: bool,
    collaborators: arrayOf(str(), 3),
    firstComment: str(2200),
    userTags: arrayOf(object({ username: str(), x: unit, y: unit, mediaIndex: int(0) }, ['username', 'x', 'y'])),
    thumbOffset: int(0),
    audioName: str(),
    trialParams: object({ graduationStrategy: oneOf('MANUAL', 'SS_PERFORMANCE') }, ['graduationStrategy']),
  },
  check(t) {
    const psd = t.platformSpecificData;
    const issues: RuleIssue[] = [...hashtagLimit(t.content, 30)];
    if (t.media.length === 0) issues.push(issue('mediaItems', 'media_required', 'Instagram needs at least one image or video'));
    if (psd.contentType === 'story' && t.media.length > 1) issues.push(issue('mediaItems', 'story_media', 'a story takes one media item'));
    if (t.media.length > 10) issues.push(issue('mediaItems', 'media_count', `at most 10 carousel items (got ${t.media.length})`));
    if (countKinds(t.media).document) issues.push(issue('mediaItems', 'media_type', 'documents are not supported'));
    return issues;
  },
  mediaLimits(psd) {
    return psd.contentType === 'story'
      ? { image: { maxBytes: 8 * MB, compressAbove: 8 * MB }, video: { compressAbove: 100 * MB, maxDurationSec: 60 } }
      : {
          image: { maxBytes: 8 * MB, compressAbove: 8 * MB, minAspect: 4 / 5 - 0.005, maxAspect: 1.91 + 0.005 },
          video: { maxBytes: 1 * GB, minDurationSec: 3, maxDurationSec: 15 * 60 },
        };
  },
  accountMetadata: [],
  scopes: [],
  capabilities: { connect: 'oauth2' },
};
