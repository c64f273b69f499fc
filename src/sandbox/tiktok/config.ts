import { PRIVACY_LEVELS } from './rules.js';
import { DEFAULT_CREATOR, type CreatorOptions, type TtStore } from './store.js';

/**
 * `POST /_config {creator: {...}, openId?}`: changes what creator_info/query reports, for the creator
 * `openId` or (without it) for every creator that has no options of its own. Keys left out keep their
 * value. Answers the current options.
 */
export function configureCreators(
  store: TtStore,
  body: Record<string, unknown>,
): Record<string, unknown> | { error: string } {
  const { creator, openId } = body as { creator?: unknown; openId?: unknown };
  if (creator !== undefined) {
    if (!creator || typeof creator !== 'object' || Array.isArray(creator))
      return { error: 'creator must be an object of creator_info fields' };
    if (openId !== undefined && (typeof openId !== 'string' || !openId)) return { error: 'openId must be a string' };
    const c = creator as Record<string, unknown>;
    const known = new Set(Object.keys(DEFAULT_CREATOR));
    const unknown = Object.keys(c).filter((k) => !known.has(k));
    if (unknown.length)
      return { error: `unknown creator fields: ${unknown.join(', ')} (known: ${[...known].join(', ')})` };
    const levels = c.privacy_level_options;
    if (
      levels !== undefined &&
      (!Array.isArray(levels) || levels.length === 0 || levels.some((l) => !PRIVACY_LEVELS.includes(l as string)))
    ) {
      return { error: `privacy_level_options must be a non-empty list of ${PRIVACY_LEVELS.join(', ')}` };
    }
    for (const key of ['comment_disabled', 'duet_disabled', 'stitch_disabled']) {
      if (c[key] !== undefined && typeof c[key] !== 'boolean') return { error: `${key} must be a boolean` };
    }
    const max = c.max_video_post_duration_sec;
    if (max !== undefined && (!Number.isInteger(max) || (max as number) <= 0))
      return { error: 'max_video_post_duration_sec must be a positive integer' };
    const base = typeof openId === 'string' ? (store.creators.get(openId) ?? store.creator) : store.creator;
    const next: CreatorOptions = { ...structuredClone(base), ...(structuredClone(c) as Partial<CreatorOptions>) };
    if (typeof openId === 'string') store.creators.set(openId, next);
    else store.creator = next;
  }
  return { creator: store.creator, creators: Object.fromEntries(store.creators) };
}
