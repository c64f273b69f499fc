import { checkSchema } from './discovery.js';
import type { YtVideoResource } from './store.js';

/*
 * videos.insert metadata rules, after the discovery schema check: the error reasons YouTube documents
 * for the call (https://developers.google.com/youtube/v3/docs/videos/insert#errors).
 */

/** Categories a video can be assigned to in the US region (videoCategories.list, assignable=true). */
const ASSIGNABLE_CATEGORIES = ['1', '2', '10', '15', '17', '19', '20', '22', '23', '24', '25', '26', '27', '28', '29'];

export interface MetadataProblem {
  code: number;
  reason: string;
  message: string;
  location?: string;
}

/** The first problem of a videos.insert resource (`parts` from the query), or null. */
export function checkVideoMetadata(resource: unknown, parts: string[], now: number): MetadataProblem | null {
  const schema = checkSchema('Video', resource);
  if (schema.length) return { code: 400, reason: 'invalid', message: schema[0].message };
  const video = resource as YtVideoResource; // its types checked by checkSchema above
  for (const key of Object.keys(video)) {
    if (['snippet', 'status'].includes(key) && !parts.includes(key)) {
      return {
        code: 400,
        reason: 'unexpectedPart',
        message: `The request specifies a ${key} but the part parameter does not include it.`,
        location: 'part',
      };
    }
  }
  const snippet = video.snippet ?? {};
  const title = snippet.title;
  // https://developers.google.com/youtube/v3/docs/videos#snippet.title: at most 100 characters, no < or >.
  if (typeof title !== 'string' || title.trim() === '' || [...title].length > 100 || /[<>]/.test(title)) {
    return {
      code: 400,
      reason: 'invalidTitle',
      message: 'The request metadata specifies an invalid or empty video title.',
    };
  }
  const description = snippet.description ?? '';
  // snippet.description: at most 5,000 bytes (UTF-8), no < or >.
  if (Buffer.byteLength(description, 'utf8') > 5000 || /[<>]/.test(description)) {
    return {
      code: 400,
      reason: 'invalidDescription',
      message: 'The request metadata specifies an invalid video description.',
    };
  }
  // snippet.tags: 500 characters in all, a tag with a space counting its quotes, commas between tags.
  if (Array.isArray(snippet.tags)) {
    const length =
      snippet.tags.reduce((n: number, t: string) => n + t.length + (/\s/.test(t) ? 2 : 0), 0) +
      Math.max(0, snippet.tags.length - 1);
    if (length > 500 || snippet.tags.some((t: string) => /[<>]/.test(t))) {
      return { code: 400, reason: 'invalidTags', message: 'The request metadata specifies invalid video keywords.' };
    }
  }
  if (snippet.categoryId !== undefined && !ASSIGNABLE_CATEGORIES.includes(snippet.categoryId)) {
    return {
      code: 400,
      reason: 'invalidCategoryId',
      message: 'The snippet.categoryId property specifies an invalid category ID.',
    };
  }
  const status = video.status ?? {};
  // status.publishAt: only for a private video, and in the future.
  if (status.publishAt !== undefined) {
    if (status.privacyStatus !== 'private' || Date.parse(status.publishAt) <= now) {
      return {
        code: 400,
        reason: 'invalidPublishAt',
        message: 'The request metadata specifies an invalid scheduled publishing time.',
      };
    }
  }
  return null;
}

/** The `part` query parameter (repeated or comma-separated). */
export function partsOf(query: Record<string, unknown>): string[] {
  const raw = query.part;
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
  return list
    .flatMap((p) => String(p).split(','))
    .map((p) => p.trim())
    .filter(Boolean);
}
