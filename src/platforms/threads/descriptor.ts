import { graphemeLength, graphemes, isAscii } from '../../lib/graphemes.js';
import type { PlatformDescriptor } from '../descriptor.js';
import { countKinds, issue, threadItemsCheck } from '../rules/helpers.js';
import { GB, MB } from '../rules/media-limits.js';
import { utf8Length } from '../rules/text.js';
import type { RuleIssue } from '../rules/types.js';

const PICTOGRAPHIC = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

/** Threads counts characters, but an emoji counts as its UTF-8 byte length (platforms.md, Threads limits). */
export function threadsLength(text: string): number {
  if (isAscii(text)) return graphemeLength(text);
  let total = 0;
  for (const g of graphemes(text)) total += PICTOGRAPHIC.test(g) ? utf8Length(g) : 1;
  return total;
}

// Threads: 500 characters, emojis counted as their UTF-8 bytes; a carousel holds up to 20 items (platforms.md). No adapter yet.
export const threads: PlatformDescriptor<'threads'> = {
  id: 'threads',
  name: 'Threads',
  text: [{ unit: 'characters', limit: 500, count: threadsLength }],
  platformSpecificData: { threadItems: threadItemsCheck },
  check(t) {
    const issues: RuleIssue[] = [];
    if (t.media.length > 20) issues.push(issue('mediaItems', 'media_count', `at most 20 media items (got ${t.media.length})`));
    if (countKinds(t.media).document) issues.push(issue('mediaItems', 'media_type', 'documents are not supported'));
    return issues;
  },
  mediaLimits: () => ({ image: { maxBytes: 8 * MB }, video: { maxBytes: 1 * GB, maxDurationSec: 5 * 60 } }),
  accountMetadata: [],
  scopes: [],
  capabilities: { connect: 'oauth2', unpublish: true },
};
