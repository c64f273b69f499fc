import type { PlatformDescriptor } from '../descriptor.js';
import { bool, countKinds, issue, oneOf, str } from '../rules/helpers.js';
import { GB } from '../rules/media-limits.js';
import { utf8Length } from '../rules/text.js';
import type { RuleIssue } from '../rules/types.js';

// YouTube: exactly one video; title <= 100 characters; description <= 5,000 bytes (platforms.md). No adapter yet.
export const youtube: PlatformDescriptor<'youtube'> = {
  id: 'youtube',
  name: 'YouTube',
  text: [{ unit: 'bytes', limit: 5000, count: utf8Length }],
  platformSpecificData: {
    title: (v) => str(100)(v) ?? (/[<>]/.test(String(v)) ? 'must not contain < or >' : null),
    visibility: oneOf('public', 'private', 'unlisted'),
    madeForKids: bool,
    firstComment: str(10000),
    containsSyntheticMedia: bool,
    categoryId: str(),
  },
  check(t) {
    const issues: RuleIssue[] = [];
    const c = countKinds(t.media);
    if (c.video !== 1 || t.media.length !== 1) issues.push(issue('mediaItems', 'media_required', 'YouTube needs exactly one video'));
    return issues;
  },
  mediaLimits: () => ({ video: { maxBytes: 256 * GB, maxDurationSec: 12 * 3600 } }),
  accountMetadata: [],
  scopes: [],
  capabilities: { connect: 'oauth2', destinations: { kind: 'channel' }, unpublish: true },
};
