import type { PublishRequest } from '../types.js';

/*
 * A target as a YouTube Video resource (https://developers.google.com/youtube/v3/docs/videos#resource):
 * the text is the description; the title is the target's `title`, else the post's, else the text's first
 * line cut to 100 characters (YouTube refuses a video without one).
 */

const TITLE_MAX = 100;
const DEFAULT_CATEGORY = '22';

/** The title YouTube gets: at most 100 characters, never `<` or `>` (which YouTube refuses). */
export function videoTitle(req: PublishRequest): string {
  const psd = req.platformSpecificData;
  const given = typeof psd.title === 'string' && psd.title.trim() ? psd.title : req.title?.trim() ? req.title : null;
  const source = given ?? req.content.split('\n').find((l) => l.trim()) ?? req.media[0]?.filename ?? 'Untitled video';
  const clean = source.replace(/[<>]/g, '').trim() || 'Untitled video';
  return [...clean].slice(0, TITLE_MAX).join('');
}

export function videoResource(req: PublishRequest): { resource: Record<string, unknown>; parts: string } {
  const psd = req.platformSpecificData;
  const snippet: Record<string, unknown> = {
    title: videoTitle(req),
    description: req.content,
    categoryId: typeof psd.categoryId === 'string' && psd.categoryId ? psd.categoryId : DEFAULT_CATEGORY,
  };
  if (Array.isArray(psd.tags) && psd.tags.length) snippet.tags = psd.tags;
  const status: Record<string, unknown> = {
    privacyStatus: typeof psd.visibility === 'string' ? psd.visibility : 'public',
    // The spec's madeForKids is the creator's own declaration (YouTube decides `madeForKids` itself).
    selfDeclaredMadeForKids: psd.madeForKids === true,
    containsSyntheticMedia: psd.containsSyntheticMedia === true,
  };
  // A scheduled YouTube premiere: YouTube makes the private video public at publishAt.
  if (typeof psd.publishAt === 'string') status.publishAt = new Date(psd.publishAt).toISOString();
  return { resource: { snippet, status }, parts: 'snippet,status' };
}
