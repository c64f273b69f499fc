import type { PlatformDescriptor } from '../descriptor.js';
import { countKinds, httpUrl, int, issue, str } from '../rules/helpers.js';
import { GB, MB } from '../rules/media-limits.js';
import { characters } from '../rules/text.js';
import type { RuleIssue } from '../rules/types.js';

// Pinterest: description <= 800 characters; an image or a video (<= 5 media); title <= 100; link <= 2048. No adapter yet.
export const pinterest: PlatformDescriptor<'pinterest'> = {
  id: 'pinterest',
  name: 'Pinterest',
  text: [characters(800)],
  platformSpecificData: {
    title: str(100),
    boardId: (v) => (typeof v === 'string' && /^\d+$/.test(v) ? null : 'must be a numeric board id'),
    link: (v) => str(2048)(v) ?? httpUrl(v),
    coverImageUrl: httpUrl,
    coverImageKeyFrameTime: int(0),
  },
  check(t) {
    const issues: RuleIssue[] = [];
    const c = countKinds(t.media);
    if (t.media.length === 0) issues.push(issue('mediaItems', 'media_required', 'Pinterest needs an image or a video'));
    if (t.media.length > 5) issues.push(issue('mediaItems', 'media_count', 'at most 5 media items'));
    if (c.video && t.media.length > 1) issues.push(issue('mediaItems', 'media_mix', 'a video pin takes one video'));
    if (c.document) issues.push(issue('mediaItems', 'media_type', 'documents are not supported'));
    return issues;
  },
  mediaLimits: () => ({ image: { maxBytes: 20 * MB }, video: { maxBytes: 2 * GB, minDurationSec: 4, maxDurationSec: 15 * 60 } }),
  accountMetadata: [],
  scopes: [],
  capabilities: { connect: 'oauth2', destinations: { kind: 'board' }, unpublish: true },
};
