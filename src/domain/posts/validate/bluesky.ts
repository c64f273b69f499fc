import { checkFields, countKinds, formatRule, issue, textLimit, threadItemsCheck, threadTexts } from './helpers.js';
import { graphemeLength, utf8Length } from './text.js';
import type { PlatformRules, RuleIssue } from './types.js';

// Bluesky: 300 graphemes and 3000 bytes; images max 4 (JPEG, PNG, WebP, GIF), or 1 MP4 video (spec limits table).
export const blueskyRules: PlatformRules = {
  platform: 'bluesky',
  check(t) {
    const issues: RuleIssue[] = [
      ...textLimit(t.content, graphemeLength(t.content), 300, 'graphemes'),
      ...textLimit(t.content, utf8Length(t.content), 3000, 'bytes'),
      ...checkFields(t.platformSpecificData, { threadItems: threadItemsCheck }),
      ...formatRule(t, 'image', ['jpeg', 'png', 'webp', 'gif']),
      ...formatRule(t, 'video', ['mp4']),
    ];
    threadTexts(t).forEach((text, i) =>
      issues.push(...textLimit(text, graphemeLength(text), 300, 'graphemes', `platformSpecificData.threadItems.${i}.content`)),
    );
    const c = countKinds(t.media);
    const images = c.image + c.gif;
    if (images > 4) issues.push(issue('mediaItems', 'media_count', `at most 4 images (got ${images})`));
    if (c.video > 1) issues.push(issue('mediaItems', 'media_count', `at most 1 video (got ${c.video})`));
    if (c.video && images) issues.push(issue('mediaItems', 'media_mix', 'images and a video cannot be combined'));
    if (c.document) issues.push(issue('mediaItems', 'media_type', 'documents are not supported'));
    t.media.forEach((m, i) => {
      if (m.altText && graphemeLength(m.altText) > 1000) issues.push(issue(`mediaItems.${i}.altText`, 'alt_text_length', 'alt text is limited to 1000 characters'));
    });
    return issues;
  },
};
