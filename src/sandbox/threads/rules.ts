/*
 * What Threads refuses when a container is created (POST /{user}/threads), each rule with its page:
 * https://developers.facebook.com/docs/threads/reference/publishing and
 * https://developers.facebook.com/docs/threads/overview#limitations
 */

/** Text: at most 500 characters (overview#limitations). */
const TEXT_LIMIT = 500;
/** A carousel has 2 to 20 children (publishing reference, carousel posts). */
const CAROUSEL_MIN = 2;
const CAROUSEL_MAX = 20;
/** Images: JPEG or PNG, at most 8 MB; videos: MOV or MP4, at most 1 GB (media specifications). */
export const IMAGE_TYPES = ['image/jpeg', 'image/png'];
export const VIDEO_TYPES = ['video/mp4', 'video/quicktime'];
export const IMAGE_MAX = 8 * 1024 * 1024;
export const VIDEO_MAX = 1024 * 1024 * 1024;
/** Alt text: at most 1,000 characters. */
const ALT_TEXT_MAX = 1000;

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

/**
 * Text length as Threads measures it: one per character, except that an emoji counts as many as its
 * UTF-8 bytes (a family emoji of three people and two joiners is 18).
 */
function threadsTextLength(text: string): number {
  let n = 0;
  for (const { segment } of segmenter.segment(text)) n += EMOJI.test(segment) ? Buffer.byteLength(segment, 'utf8') : 1;
  return n;
}

/**
 * The first problem of a container's parameters (before any media is fetched), or null. The Graph core has
 * already held them to the Threads spec (graph/specs/threads-specs.json): no parameter the edge does not
 * define, media_type present and one of TEXT, IMAGE, VIDEO, CAROUSEL, is_carousel_item a boolean,
 * reply_control one of its values. What is left are the rules between parameters and the limits.
 */
export function containerProblem(p: Record<string, string>): { message: string; subcode?: number } | null {
  const type = p.media_type.toUpperCase();
  if (p.text !== undefined && threadsTextLength(p.text) > TEXT_LIMIT) {
    return { message: `Param text must be at most ${TEXT_LIMIT} characters long`, subcode: 4279017 };
  }
  const carouselItem = p.is_carousel_item === 'true' || p.is_carousel_item === '1';
  if (type === 'TEXT' && !p.text) return { message: 'Param text is required for a TEXT container' };
  if (type === 'IMAGE' && !p.image_url) return { message: 'Param image_url is required for an IMAGE container' };
  if (type === 'VIDEO' && !p.video_url) return { message: 'Param video_url is required for a VIDEO container' };
  if (type !== 'IMAGE' && p.image_url) return { message: 'Param image_url is only for IMAGE containers' };
  if (type !== 'VIDEO' && p.video_url) return { message: 'Param video_url is only for VIDEO containers' };
  if (carouselItem && type !== 'IMAGE' && type !== 'VIDEO')
    return { message: 'Only IMAGE and VIDEO containers can be carousel items' };
  if (carouselItem && (p.reply_to_id || p.reply_control))
    return { message: 'A carousel item cannot carry reply_to_id or reply_control: the carousel does' };
  if (type === 'CAROUSEL') {
    const n = (p.children ?? '').split(',').filter(Boolean).length;
    if (n < CAROUSEL_MIN || n > CAROUSEL_MAX)
      return {
        message: `Param children must list ${CAROUSEL_MIN} to ${CAROUSEL_MAX} carousel item containers`,
        subcode: 4279007,
      };
  } else if (p.children) return { message: 'Param children is only for CAROUSEL containers' };
  if (p.alt_text !== undefined && p.alt_text.length > ALT_TEXT_MAX)
    return { message: `Param alt_text must be at most ${ALT_TEXT_MAX} characters long` };
  for (const id of ['reply_to_id', 'quote_post_id', 'location_id'])
    if (p[id] !== undefined && !/^\d+$/.test(p[id])) return { message: `Param ${id} must be a valid ID` };
  return null;
}
