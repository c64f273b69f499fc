import type { PlatformDescriptor } from '../descriptor.js';
import { countKinds, issue, oneOf } from '../rules/helpers.js';
import { MB } from '../rules/media-limits.js';
import { characters } from '../rules/text.js';
import type { RuleIssue } from '../rules/types.js';

// Snapchat: exactly one image or video, no text-only posts; a spotlight description <= 160 (platforms.md). No adapter yet.
export const snapchat: PlatformDescriptor<'snapchat'> = {
  id: 'snapchat',
  name: 'Snapchat',
  text: [characters(160)],
  platformSpecificData: { contentType: oneOf('story', 'saved_story', 'spotlight') },
  check(t) {
    const issues: RuleIssue[] = [];
    const c = countKinds(t.media);
    if (t.media.length !== 1 || c.document) issues.push(issue('mediaItems', 'media_required', 'Snapchat needs exactly one image or video'));
    if (t.platformSpecificData.contentType === 'spotlight' && c.video !== 1) {
      issues.push(issue('mediaItems', 'spotlight_media', 'a spotlight needs a video'));
    }
    return issues;
  },
  mediaLimits: () => ({
    image: { maxBytes: 20 * MB },
    video: { maxBytes: 500 * MB, minDurationSec: 5, maxDurationSec: 60, minWidth: 540, minHeight: 960 },
  }),
  accountMetadata: [],
  scopes: [],
  capabilities: { connect: 'oauth2', destinations: { kind: 'profile' } },
};
