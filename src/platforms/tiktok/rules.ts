import {
  bool,
  countKinds,
  formatRule,
  int,
  issue,
  mediaKind,
  oneOf,
  type FieldCheck,
  described,
} from '../rules/helpers.js';
import { GB, MB } from '../rules/media-limits.js';
import { utf16Length } from '../rules/text.js';
import type { AccountCheckTarget } from '../descriptor.js';
import type { RuleIssue, TargetRule, TextRule } from '../rules/types.js';
import { cachedCreator, creatorConflicts } from './creator.js';

/*
 * TikTok's rules for a target: one video, or a photo carousel of 1 to 35 JPEG or WebP images
 * (https://developers.tiktok.com/doc/content-posting-api-reference-photo-post); the text is a video's
 * title or a photo post's description, at most 2,200 UTF-16 units as TikTok counts them
 * (https://developers.tiktok.com/doc/content-posting-api-reference-direct-post, post_info.title).
 */

export const CAPTION: TextRule = { unit: 'UTF-16 units', limit: 2200, count: utf16Length };

const PRIVACY_LEVELS = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'];

export const PLATFORM_SPECIFIC_DATA: Record<string, FieldCheck> = {
  draft: bool,
  privacyLevel: oneOf(...PRIVACY_LEVELS),
  allowComment: bool,
  allowDuet: bool,
  allowStitch: bool,
  commercialContentType: oneOf('none', 'brand_organic', 'brand_content'),
  brandPartnerPromote: bool,
  isBrandOrganicPost: bool,
  contentPreviewConfirmed: bool,
  expressConsentGiven: bool,
  mediaType: oneOf('video', 'photo'),
  videoCoverTimestampMs: int(0),
  photoCoverIndex: int(0),
  autoAddMusic: bool,
  videoMadeWithAi: bool,
  description: described(
    (v) => (typeof v === 'string' && utf16Length(v) <= 4000 ? null : 'must be a string of at most 4000 UTF-16 units'),
    { type: 'string', maxLength: 4000 },
  ),
};

/** Whether the target is a photo post: its media are images (mediaType says so when given). */
export function isPhotoTarget(t: {
  media: { type?: string | null }[];
  platformSpecificData: Record<string, unknown>;
}): boolean {
  if (t.platformSpecificData.mediaType === 'photo') return true;
  if (t.platformSpecificData.mediaType === 'video') return false;
  return t.media.length > 0 && t.media.every((m) => mediaKind(m as never) === 'image');
}

const isBrandedContent = (psd: Record<string, unknown>) =>
  psd.commercialContentType === 'brand_content' || psd.brandPartnerPromote === true;

export const checkTarget: TargetRule = (t) => {
  const issues: RuleIssue[] = [];
  const c = countKinds(t.media);
  const psd = t.platformSpecificData;
  if (t.media.length === 0) issues.push(issue('mediaItems', 'media_required', 'TikTok needs a video or photos'));
  if (c.document) issues.push(issue('mediaItems', 'media_type', 'documents are not supported'));
  if (c.gif) issues.push(issue('mediaItems', 'media_type', 'TikTok photo posts take JPEG or WebP images, not GIFs'));
  if (c.video && t.media.length > 1)
    issues.push(issue('mediaItems', 'media_mix', 'a video post takes exactly one video'));
  if (c.image > 35) issues.push(issue('mediaItems', 'media_count', 'at most 35 photos'));
  if (psd.mediaType === 'photo' && c.video)
    issues.push(issue('platformSpecificData.mediaType', 'media_mix', 'mediaType photo takes images only'));
  if (psd.mediaType === 'video' && c.image)
    issues.push(issue('platformSpecificData.mediaType', 'media_mix', 'mediaType video takes one video'));
  issues.push(...formatRule(t, 'image', ['jpeg', 'webp']));
  if (typeof psd.photoCoverIndex === 'number' && c.image && psd.photoCoverIndex >= c.image) {
    issues.push(
      issue(
        'platformSpecificData.photoCoverIndex',
        'photo_cover_index',
        `photoCoverIndex must be the index of one of the ${c.image} photos`,
      ),
    );
  }
  // Branded content (a paid partnership) must be visible to others: TikTok refuses it private
  // (https://developers.tiktok.com/doc/content-sharing-guidelines, commercial content disclosure).
  if (isBrandedContent(psd) && psd.privacyLevel === 'SELF_ONLY') {
    issues.push(
      issue(
        'platformSpecificData.privacyLevel',
        'branded_content_private',
        'branded content (brand_content) cannot be private: choose a privacyLevel other than SELF_ONLY',
      ),
    );
  }
  if (psd.commercialContentType === 'none' && (psd.brandPartnerPromote === true || psd.isBrandOrganicPost === true)) {
    issues.push(
      issue(
        'platformSpecificData.commercialContentType',
        'commercial_content_mismatch',
        'commercialContentType none contradicts brandPartnerPromote / isBrandOrganicPost',
      ),
    );
  }
  return issues;
};

/**
 * The target against the creator's options as last seen (`creatorInfo` in the account's metadata): a
 * privacyLevel the creator does not offer, or an interaction turned on that the creator disabled, is
 * refused when the post is created rather than when it is due.
 */
export function checkAccount(t: AccountCheckTarget, metadata: Record<string, unknown>): RuleIssue[] {
  const creator = cachedCreator(metadata);
  if (!creator) return [];
  const photo = isPhotoTarget({ media: t.media ?? [], platformSpecificData: t.platformSpecificData });
  const issues = creatorConflicts(t.platformSpecificData, creator, photo ? 'photo' : 'video').map((c) =>
    issue(c.field, c.code, c.message),
  );
  // The creator's longest video (creator_info max_video_post_duration_sec), for the videos Herald probed.
  const max = creator.maxVideoPostDurationSec;
  if (!photo && max) {
    t.mediaDurationsSec?.forEach((seconds, i) => {
      if (seconds !== null && seconds > max) {
        issues.push(
          issue(
            `mediaItems.${i}`,
            'duration_check_failed',
            `the video lasts ${seconds.toFixed(1)} s; this TikTok creator can post videos of at most ${max} s`,
          ),
        );
      }
    });
  }
  return issues;
}

/** 4 GB per video (media transfer guide), 20 MB per photo (photo post page). */
export const mediaLimits = () => ({ image: { maxBytes: 20 * MB }, video: { maxBytes: 4 * GB } });
