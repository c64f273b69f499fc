import { checkFields, countKinds, formatRule, issue, oneOf, str, textLimit } from './helpers.js';
import type { PlatformRules, RuleIssue } from './types.js';

// Facebook: text 63,206; feed up to 10 images or 1 video, never both (spec); a story is one media item,
// no first comment; a reel is one video.
export const facebookRules: PlatformRules = {
  platform: 'facebook',
  check(t) {
    const psd = t.platformSpecificData;
    const issues: RuleIssue[] = [
      ...textLimit(t.content, [...t.content].length, 63206),
      ...checkFields(psd, { contentType: oneOf('story', 'reel'), title: str(255), firstComment: str(8000), pageId: str() }),
    ];
    const c = countKinds(t.media);
    const images = c.image + c.gif;
    if (images && c.video) issues.push(issue('mediaItems', 'media_mix', 'a Facebook post cannot mix images and videos'));
    if (c.document) issues.push(issue('mediaItems', 'media_type', 'documents are not supported'));
    if (psd.contentType === 'story') {
      if (t.media.length !== 1) issues.push(issue('mediaItems', 'story_media', 'a story needs exactly one image or video'));
      if (psd.firstComment) issues.push(issue('platformSpecificData.firstComment', 'story_first_comment', 'first comments do not work with stories'));
      issues.push(...formatRule(t, 'image', ['jpeg', 'png']), ...formatRule(t, 'video', ['mp4', 'mov']));
    } else if (psd.contentType === 'reel') {
      if (c.video !== 1 || t.media.length !== 1) issues.push(issue('mediaItems', 'reel_media', 'a reel needs exactly one video'));
      issues.push(...formatRule(t, 'video', ['mp4', 'mov']));
    } else {
      if (psd.title !== undefined) issues.push(issue('platformSpecificData.title', 'reel_title', 'title applies to reels only'));
      if (images > 10) issues.push(issue('mediaItems', 'media_count', `at most 10 images (got ${images})`));
      if (c.video > 1) issues.push(issue('mediaItems', 'media_count', `at most 1 video (got ${c.video})`));
      issues.push(...formatRule(t, 'image', ['jpeg', 'png', 'gif', 'webp']), ...formatRule(t, 'video', ['mp4', 'mov']));
    }
    return issues;
  },
};
