import { graphemeLength, graphemes, isAscii } from '../../lib/graphemes.js';
import { countKinds, issue, threadItemsCheck } from '../rules/helpers.js';
import { GB, MB, type PlatformMediaLimits } from '../rules/media-limits.js';
import { utf8Length } from '../rules/text.js';
import type { RuleIssue, TargetRule, TextRule } from '../rules/types.js';
import { PlatformError, type MediaRef, type PublishRequest } from '../types.js';

/*
 * Threads' rules, shared by validation (descriptor.ts) and the adapter, so a post validation accepts is
 * never refused by the adapter for its length. https://developers.facebook.com/docs/threads/overview#limitations
 */

const PICTOGRAPHIC = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

/** Threads counts characters, but an emoji counts as its UTF-8 byte length (platforms.md, Threads limits). */
export function threadsLength(text: string): number {
  if (isAscii(text)) return graphemeLength(text);
  let total = 0;
  for (const g of graphemes(text)) total += PICTOGRAPHIC.test(g) ? utf8Length(g) : 1;
  return total;
}

/** 500 characters for the root and for each reply of a sequence. */
export const TEXT: TextRule = { unit: 'characters', limit: 500, count: threadsLength };

/** A carousel holds 2 to 20 items. */
const MAX_MEDIA = 20;

export const PLATFORM_SPECIFIC_DATA = { threadItems: threadItemsCheck };

/** Images and videos only (JPEG/PNG, MP4/MOV): Threads takes no documents and no GIF files. */
function mediaIssues(media: { type?: unknown; url?: unknown }[], field: string): RuleIssue[] {
  const issues: RuleIssue[] = [];
  const kinds = countKinds(media as never);
  if (media.length > MAX_MEDIA)
    issues.push(issue(field, 'media_count', `at most ${MAX_MEDIA} media items (got ${media.length})`));
  if (kinds.document) issues.push(issue(field, 'media_type', 'documents are not supported'));
  if (kinds.gif)
    issues.push(
      issue(field, 'media_type', 'GIF files are not supported: Threads takes JPEG or PNG images and MP4 or MOV videos'),
    );
  return issues;
}

export const checkTarget: TargetRule = (t) => {
  const issues = mediaIssues(t.media, 'mediaItems');
  const items = t.platformSpecificData.threadItems;
  if (Array.isArray(items)) {
    items.forEach((item, i) => {
      const media = (item as { mediaItems?: unknown })?.mediaItems;
      if (Array.isArray(media)) issues.push(...mediaIssues(media, `platformSpecificData.threadItems[${i}].mediaItems`));
    });
  }
  return issues;
};

export const mediaLimits = (): PlatformMediaLimits => ({
  image: { maxBytes: 8 * MB },
  video: { maxBytes: 1 * GB, maxDurationSec: 5 * 60 },
});

/** The adapter's own check of what it sends (the same rules as validation): text length and media kinds. */
export function checkPublishable(req: PublishRequest): void {
  const posts: { text: string; media: MediaRef[] }[] = [
    { text: req.content, media: req.media },
    ...req.threadItems.map((i) => ({ text: i.content, media: i.media })),
  ];
  for (const [i, p] of posts.entries()) {
    const where = i === 0 ? 'the post' : `thread item ${i}`;
    const length = threadsLength(p.text);
    if (length > TEXT.limit)
      throw new PlatformError(
        'rejected',
        `${where} is ${length} characters as Threads counts them; the limit is ${TEXT.limit}`,
        { platformCode: 'text_length' },
      );
    if (!p.text && p.media.length === 0)
      throw new PlatformError('rejected', `${where} has neither text nor media`, { platformCode: 'empty_post' });
    if (p.media.length > MAX_MEDIA)
      throw new PlatformError(
        'rejected',
        `${where} has ${p.media.length} media items; a carousel holds at most ${MAX_MEDIA}`,
        { platformCode: 'media_count' },
      );
    const other = p.media.find((m) => m.type !== 'image' && m.type !== 'video');
    if (other)
      throw new PlatformError('rejected', `Threads takes images and videos, not ${other.type} files`, {
        platformCode: 'media_type',
      });
  }
}
