import { PRIVACY_LEVELS } from './rules.js';
import { DEFAULT_CREATOR, type CreatorOptions, type TtStore } from './store.js';

/** The longest moderation the simulator holds a post for: a week. */
const MAX_MODERATION_MS = 7 * 24 * 3600_000;

/**
 * `POST /_config {creator: {...}, moderationMs?, openId?}`: changes what creator_info/query reports, and
 * how long moderation holds a direct post before it is public (`moderationMs`: 0 to a week, or null to
 * hold it until changed; default 0), for the creator `openId` or (without it) for every creator that has
 * no setting of its own. Keys left out keep their value. Answers the current settings.
 */
export function configureCreators(
  store: TtStore,
  body: Record<string, unknown>,
): Record<string, unknown> | { error: string } {
  const { creator, openId, moderationMs } = body as { creator?: unknown; openId?: unknown; moderationMs?: unknown };
  if (openId !== undefined && (typeof openId !== 'string' || !openId)) return { error: 'openId must be a string' };
  if (
    moderationMs !== undefined &&
    moderationMs !== null &&
    (!Number.isInteger(moderationMs) || (moderationMs as number) < 0 || (moderationMs as number) > MAX_MODERATION_MS)
  )
    return { error: `moderationMs must be null or an integer from 0 to ${MAX_MODERATION_MS}` };
  if (creator !== undefined) {
    if (!creator || typeof creator !== 'object' || Array.isArray(creator))
      return { error: 'creator must be an object of creator_info fields' };
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
  if (moderationMs !== undefined) {
    if (typeof openId === 'string') store.moderationOf.set(openId, moderationMs as number | null);
    else store.moderationMs = moderationMs as number | null;
  }
  return {
    creator: store.creator,
    creators: Object.fromEntries(store.creators),
    moderationMs: store.moderationMs,
    moderationOf: Object.fromEntries(store.moderationOf),
  };
}
