import type { PublishRequest } from '../types.js';
import { PUBLIC, type CreatorInfo } from './creator.js';

/*
 * A target as TikTok's post_info (https://developers.tiktok.com/doc/content-posting-api-reference-direct-post,
 * https://developers.tiktok.com/doc/content-posting-api-reference-photo-post). The text is a video's title
 * (at most 2,200 UTF-16 units) or a photo post's description; an interaction the creator turned off is
 * sent disabled whatever the target says (validation refuses a target that asks for it explicitly).
 */

/** Commercial content disclosure: `brand_organic` promotes the creator's own business, `brand_content` a third party's (a paid partnership). */
function disclosure(psd: Record<string, unknown>): Record<string, boolean> {
  const type = psd.commercialContentType;
  const brandContent = type === 'brand_content' || psd.brandPartnerPromote === true;
  const brandOrganic = type === 'brand_organic' || psd.isBrandOrganicPost === true;
  return {
    ...(brandContent ? { brand_content_toggle: true } : { brand_content_toggle: false }),
    ...(brandOrganic ? { brand_organic_toggle: true } : { brand_organic_toggle: false }),
  };
}

function privacyLevel(psd: Record<string, unknown>): string {
  return typeof psd.privacyLevel === 'string' ? psd.privacyLevel : PUBLIC;
}

/** A photo post's title: TikTok takes at most 90 UTF-16 units. */
const PHOTO_TITLE_MAX = 90;

function cutUtf16(text: string, max: number): string {
  let out = '';
  for (const ch of text) {
    if (out.length + ch.length > max) break;
    out += ch;
  }
  return out;
}

export function videoPostInfo(req: PublishRequest, creator: CreatorInfo): Record<string, unknown> {
  const psd = req.platformSpecificData;
  const info: Record<string, unknown> = {
    title: req.content,
    privacy_level: privacyLevel(psd),
    disable_comment: creator.commentDisabled || psd.allowComment === false,
    disable_duet: creator.duetDisabled || psd.allowDuet === false,
    disable_stitch: creator.stitchDisabled || psd.allowStitch === false,
    is_aigc: psd.videoMadeWithAi === true,
    ...disclosure(psd),
  };
  if (typeof psd.videoCoverTimestampMs === 'number') info.video_cover_timestamp_ms = psd.videoCoverTimestampMs;
  return info;
}

export function photoPostInfo(req: PublishRequest, creator: CreatorInfo): Record<string, unknown> {
  const psd = req.platformSpecificData;
  const info: Record<string, unknown> = {
    description: typeof psd.description === 'string' ? psd.description : req.content,
    privacy_level: privacyLevel(psd),
    disable_comment: creator.commentDisabled || psd.allowComment === false,
    auto_add_music: psd.autoAddMusic === true,
    ...disclosure(psd),
  };
  const title = req.title?.trim() ? cutUtf16(req.title.trim(), PHOTO_TITLE_MAX) : '';
  if (title) info.title = title;
  return info;
}
