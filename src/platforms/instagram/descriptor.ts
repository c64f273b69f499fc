import type { PlatformDescriptor } from '../descriptor.js';
import { DAY } from '../limits.js';
import {
  arrayOf,
  bool,
  countKinds,
  hashtagLimit,
  int,
  issue,
  object,
  oneOf,
  str,
  type FieldCheck,
} from '../rules/helpers.js';
import { GB, MB } from '../rules/media-limits.js';
import type { RuleIssue } from '../rules/types.js';
import { INSTAGRAM_DEFAULT_SCOPES } from './api.js';
import { instagramAdapterFromConfig } from './index.js';
import { CAPTION } from './rules.js';
import { INSTAGRAM_ACCOUNT_TOOLS } from './account-tools.js';
import { INSTAGRAM_AUDIO_TOOLS } from './audio-tools.js';
import { INSTAGRAM_DESTINATIONS } from './destinations.js';
import { INSTAGRAM_INSIGHTS_TOOLS } from './insights-tools.js';
import { INSTAGRAM_TOOLS } from './settings.js';

// Instagram: media is required; caption <= 2,200 characters and <= 30 hashtags; a carousel holds up to 10
// items; a story is one item (platforms.md, Instagram limits; spec platformSpecificData table). A single
// video is a reel: thumbOffset, audioName and trialParams apply to reels only; user tags sit on a
// carousel's images (mediaIndex within the media). Instagram deletes nothing through the API: no unpublish.
const unit: FieldCheck = (v) => (typeof v === 'number' && v >= 0 && v <= 1 ? null : 'must be a number between 0 and 1');

export const instagram: PlatformDescriptor<'instagram'> = {
  id: 'instagram',
  name: 'Instagram',
  tools: [...INSTAGRAM_TOOLS, ...INSTAGRAM_ACCOUNT_TOOLS, ...INSTAGRAM_AUDIO_TOOLS, ...INSTAGRAM_INSIGHTS_TOOLS],
  text: [CAPTION],
  display: { label: 'Instagram', glyph: 'Ig', colour: '#c13584' },
  // The feed takes 4:5 to 1.91:1 (error 36003 outside: ../shared/reference/platforms.md, Instagram).
  preview: { crop: [4 / 5, 1.91] },
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
    if (t.media.length === 0)
      issues.push(issue('mediaItems', 'media_required', 'Instagram needs at least one image or video'));
    if (psd.contentType === 'story' && t.media.length > 1)
      issues.push(issue('mediaItems', 'story_media', 'a story takes one media item'));
    if (t.media.length > 10)
      issues.push(issue('mediaItems', 'media_count', `at most 10 carousel items (got ${t.media.length})`));
    const c = countKinds(t.media);
    if (c.document) issues.push(issue('mediaItems', 'media_type', 'documents are not supported'));
    // Instagram takes JPEG images only: PNG, WebP and other stills are converted to JPEG when published
    // (mediaLimits jpegOnly); a GIF, which would lose its motion, is refused.
    if (c.gif)
      issues.push(
        issue(
          'mediaItems',
          'media_format',
          'Instagram takes no GIFs: send a JPEG, PNG or WebP image (converted to JPEG) or a video',
        ),
      );
    const reel = psd.contentType !== 'story' && t.media.length === 1 && c.video === 1;
    for (const key of ['thumbOffset', 'audioName', 'trialParams'] as const) {
      if (psd[key] !== undefined && !reel)
        issues.push(
          issue(`platformSpecificData.${key}`, 'reel_only', `${key} applies to reels only (one video, not a story)`),
        );
    }
    if (psd.contentType === 'story') {
      for (const key of ['collaborators', 'userTags', 'firstComment'] as const) {
        if (psd[key] !== undefined)
          issues.push(issue(`platformSpecificData.${key}`, 'story_option', `${key} does not apply to stories`));
      }
    }
    if (Array.isArray(psd.userTags)) {
      (psd.userTags as { mediaIndex?: number }[]).forEach((tag, i) => {
        const at = tag?.mediaIndex ?? 0;
        if (t.media.length && at >= t.media.length)
          issues.push(
            issue(
              `platformSpecificData.userTags.${i}.mediaIndex`,
              'media_index',
              `mediaIndex ${at} names no media item (${t.media.length} given)`,
            ),
          );
        else if (t.media.length > 1 && t.media[at]?.type === 'video')
          issues.push(
            issue(
              `platformSpecificData.userTags.${i}.mediaIndex`,
              'tag_on_video',
              'user tags in a carousel go on images',
            ),
          );
      });
    }
    return issues;
  },
  mediaLimits(psd) {
    return psd.contentType === 'story'
      ? {
          image: { maxBytes: 8 * MB, compressAbove: 8 * MB, jpegOnly: true },
          video: { compressAbove: 100 * MB, maxDurationSec: 60 },
        }
      : {
          image: {
            maxBytes: 8 * MB,
            compressAbove: 8 * MB,
            minAspect: 4 / 5 - 0.005,
            maxAspect: 1.91 + 0.005,
            jpegOnly: true,
          },
          video: { maxBytes: 1 * GB, minDurationSec: 3, maxDurationSec: 15 * 60 },
        };
  },
  accountMetadata: ['igUserId', 'igUsername', 'pageId', 'pageName'],
  accountIdKey: 'igUserId',
  scopes: INSTAGRAM_DEFAULT_SCOPES,
  // A professional account chosen among those linked to the user's Pages: on Herald's selection page, or
  // in a headless flow through the hosted API's select-account routes (destinations.ts).
  capabilities: { connect: 'oauth2', destinations: INSTAGRAM_DESTINATIONS, processing: true, lookup: true },
  limits: [
    // https://developers.facebook.com/docs/instagram-platform/content-publishing#rate-limit: 100
    // API-published posts per account in a moving 24 hours (a carousel counts as one); the adapter also
    // reads GET /{ig-user-id}/content_publishing_limit before it publishes.
    {
      scope: 'account',
      limit: 100,
      windowMs: DAY,
      cite: 'https://developers.facebook.com/docs/instagram-platform/content-publishing#rate-limit',
    },
  ],
  createAdapter: instagramAdapterFromConfig,
};
