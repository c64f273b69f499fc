/*
 * What Threads refuses when a container is created (POST /{user}/threads), each rule with its page:
 * https://developers.facebook.com/docs/threads/reference/publishing and
 * https://developers.facebook.com/docs/threads/overview#limitations
 */

/** The parameters the `threads` edge defines (Meta's Postman collection and the publishing reference). */
export const CONTAINER_PARAMS = new Set([
  'access_token',
  'media_type',
  'text',
  'image_url',
  'video_url',
  'is_carousel_item',
  'children',
  'reply_to_id',
  'quote_post_id',
  'reply_control',
  'alt_text',
  'link_attachment',
  'topic_tag',
  'location_id',
  'allowlisted_country_codes',
  'auto_publish_text',
  'poll_attachment',
]);

export const MEDIA_TYPES = ['TEXT', 'IMAGE', 'VIDEO', 'CAROUSEL'] as const;
export const REPLY_CONTROLS = ['everyone', 'accounts_you_follow', 'mentioned_only', 'parent_post_author_only', 'followers_only'];

/** Text: at most 500 characters (overview#limitations). */
export const TEXT_LIMIT = 500;
/** A carousel has 2 to 20 children (publishing reference, carousel posts). */
export const CAROUSEL_MIN = 2;
export const CAROUSEL_MAX = 20;
/** Images: JPEG or PNG, at most 8 MB; videos: MOV or MP4, at most 1 GB (media specifications). */
export const IMAGE_TYPES = ['image/jpeg', 'image/png'];
export const VIDEO_TYPES = ['video/mp4', 'video/quicktime'];
export const IMAGE_MAX = 8 * 1024 * 1024;
export const VIDEO_MAX = 1024 * 1024 * 1024;
/** Alt text: at most 1,000 characters. */
export const ALT_TEXT_MAX = 1000;

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

/**
 * Text length as Threads measures it: one per character, except that an emoji counts as many as its
 * UTF-8 bytes (a family emoji of three people and two joiners is 18).
 */
export function threadsTextLength(text: string): number {
  let n = 0;
  for (const { segment } of segmenter.segment(text)) n += EMOJI.test(segment) ? Buffer.byteLength(segment, 'utf8') : 1;
  return n;
}

/** The first problem of a container's parameters (before any media is fetched), or null. */
export function containerProblem(p: Record<string, string>): { message: string; subcode?: number } | null {
  const unknown = Object.keys(p).filter((k) => !CONTAINER_PARAMS.has(k));
  if (unknown.length) return { message: `Param ${unknown[0]} is not a valid parameter of the threads edge` };
  const type = p.media_type;
  if (!type) return { message: 'The parameter media_type is required' };
  if (!(MEDIA_TYPES as readonly string[]).includes(type)) return { message: `Param media_type must be one of {${MEDIA_TYPES.join(', ')}}` };
  if (p.text !== undefined && threadsTextLength(p.text) > TEXT_LIMIT) {
    return { message: `Param text must be at most ${TEXT_LIMIT} characters long`, subcode: 4279017 };
  }
  if (type === 'TEXT' && !p.text) return { message: 'Param text is required for a TEXT container' };
  if (type === 'IMAGE' && !p.image_url) return { message: 'Param image_url is required for an IMAGE container' };
  if (type === 'VIDEO' && !p.video_url) return { message: 'Param video_url is required for a VIDEO container' };
  if (type !== 'IMAGE' && p.image_url) return { message: 'Param image_url is only for IMAGE containers' };
  if (type !== 'VIDEO' && p.video_url) return { message: 'Param video_url is only for VIDEO containers' };
  if (p.is_carousel_item !== undefined && p.is_carousel_item !== 'true' && p.is_carousel_item !== 'false') return { message: 'Param is_carousel_item must be a boolean' };
  if (p.is_carousel_item === 'true' && type !== 'IMAGE' && type !== 'VIDEO') return { message: 'Only IMAGE and VIDEO containers can be carousel items' };
  if (p.is_carousel_item === 'true' && (p.reply_to_id || p.reply_control)) return { message: 'A carousel item cannot carry reply_to_id or reply_control: the carousel does' };
  if (type === 'CAROUSEL') {
    const n = (p.children ?? '').split(',').filter(Boolean).length;
    if (n < CAROUSEL_MIN || n > CAROUSEL_MAX) return { message: `Param children must list ${CAROUSEL_MIN} to ${CAROUSEL_MAX} carousel item containers`, subcode: 4279007 };
  } else if (p.children) return { message: 'Param children is only for CAROUSEL containers' };
  if (p.reply_control && !REPLY_CONTROLS.includes(p.reply_control)) return { message: `Param reply_control must be one of {${REPLY_CONTROLS.join(', ')}}` };
  if (p.alt_text !== undefined && p.alt_text.length > ALT_TEXT_MAX) return { message: `Param alt_text must be at most ${ALT_TEXT_MAX} characters long` };
  for (const id of ['reply_to_id', 'quote_post_id', 'location_id']) if (p[id] !== undefined && !/^\d+$/.test(p[id])) return { message: `Param ${id} must be a valid ID` };
  return null;
}
