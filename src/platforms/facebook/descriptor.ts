import type { PlatformDescriptor } from '../descriptor.js';
import { countKinds, formatRule, issue, oneOf, str } from '../rules/helpers.js';
import { GB, MB } from '../rules/media-limits.js';
import type { RuleIssue } from '../rules/types.js';
import { FACEBOOK_DESTINATIONS } from './destinations.js';
import { facebookAdapterFromConfig } from './index.js';
import { FACEBOOK_DEFAULT_SCOPES } from './oauth.js';
import { MESSAGE } from './rules.js';
import { FACEBOOK_INSIGHTS_TOOLS } from './insights-tools.js';
import { FACEBOOK_TOOLS } from './tools.js';

// Facebook: text 63,206; feed up to 10 images or 1 video, never both (spec); a story is one media item,
// no first comment; a reel is one video.
export const facebook: PlatformDescriptor<'facebook'> = {
  id: 'facebook',
  name: 'Facebook',
  display: { label: 'Facebook', glyph: 'f', colour: '#1657c9' },
  // Instagram's feed shapes (4:5 to 1.91:1), a common value for Facebook's feed without a reference.
  preview: { crop: [4 / 5, 1.91], card: true },
  text: [MESSAGE],
  platformSpecificData: {
    contentType: oneOf('story', 'reel'),
    title: str(255),
    firstComment: str(8000),
    pageId: str(),
  },
  check(t) {
    const psd = t.platformSpecificData;
    const issues: RuleIssue[] = [];
    const c = countKinds(t.media);
    const images = c.image + c.gif;
    if (images && c.video)
      issues.push(issue('mediaItems', 'media_mix', 'a Facebook post cannot mix images and videos'));
    if (c.document) issues.push(issue('mediaItems', 'media_type', 'documents are not supported'));
    if (psd.contentType === 'story') {
      if (t.media.length !== 1)
        issues.push(issue('mediaItems', 'story_media', 'a story needs exactly one image or video'));
      if (psd.firstComment)
        issues.push(
          issue('platformSpecificData.firstComment', 'story_first_comment', 'first comments do not work with stories'),
        );
      issues.push(...formatRule(t, 'image', ['jpeg', 'png']), ...formatRule(t, 'video', ['mp4', 'mov']));
    } else if (psd.contentType === 'reel') {
      if (c.video !== 1 || t.media.length !== 1)
        issues.push(issue('mediaItems', 'reel_media', 'a reel needs exactly one video'));
      issues.push(...formatRule(t, 'video', ['mp4', 'mov']));
    } else {
      if (psd.title !== undefined)
        issues.push(issue('platformSpecificData.title', 'reel_title', 'title applies to reels only'));
      if (images > 10) issues.push(issue('mediaItems', 'media_count', `at most 10 images (got ${images})`));
      if (c.video > 1) issues.push(issue('mediaItems', 'media_count', `at most 1 video (got ${c.video})`));
      issues.push(...formatRule(t, 'image', ['jpeg', 'png', 'gif', 'webp']), ...formatRule(t, 'video', ['mp4', 'mov']));
    }
    return issues;
  },
  mediaLimits(psd) {
    return psd.contentType === 'story'
      ? {
          image: { maxBytes: 10 * MB, compressAbove: 10 * MB, minWidth: 500, minHeight: 500 },
          video: { maxBytes: 4 * GB, compressAbove: 4 * GB, minDurationSec: 1, maxDurationSec: 120 },
        }
      : {
          image: { maxBytes: 10 * MB, compressAbove: 10 * MB, minWidth: 200, minHeight: 200 },
          video: { maxBytes: 4 * GB, compressAbove: 4 * GB, minDurationSec: 1, maxDurationSec: 240 * 60 },
        };
  },
  accountMetadata: ['pageId', 'pageName'],
  accountIdKey: 'pageId',
  scopes: FACEBOOK_DEFAULT_SCOPES,
  capabilities: {
    editText: true,
    connect: 'oauth2',
    destinations: FACEBOOK_DESTINATIONS,
    unpublish: true,
    lookup: true,
    processing: true,
  },
  // https://developers.facebook.com/docs/graph-api/overview/rate-limiting: a Page's limit is 4,800 calls
  // times its engaged users per 24 hours, a figure only the platform knows (X-Business-Use-Case-Usage);
  // no fixed budget to declare: its throttling codes (4, 17, 32, 613) pause the account by their hint.
  limits: [],
  tools: [...FACEBOOK_TOOLS, ...FACEBOOK_INSIGHTS_TOOLS],
  createAdapter: facebookAdapterFromConfig,
};
