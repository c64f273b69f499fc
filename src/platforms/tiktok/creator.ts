import { PlatformError, type PlatformIO } from '../types.js';
import { ttRequest, type TikTokOptions } from './api.js';

/*
 * What creator_info/query reports about the creator's posting options
 * (https://developers.tiktok.com/doc/content-posting-api-reference-query-creator-info), and the checks a
 * post must pass against them. The same checks run twice: at creation against the copy cached in the
 * account's metadata (`creatorInfo`, refreshed at connect, token refresh and every publish), and at
 * publish against a fresh query, since the creator may change the options in the app in between.
 */

export interface CreatorInfo {
  username: string | null;
  nickname: string | null;
  avatarUrl: string | null;
  privacyLevelOptions: string[];
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  maxVideoPostDurationSec: number | null;
}

/** The creator's current options (POST /v2/post/publish/creator_info/query/). */
export async function queryCreator(opts: TikTokOptions, io: PlatformIO, accessToken: string): Promise<CreatorInfo> {
  const res = await ttRequest(io, {
    method: 'POST',
    url: `${opts.apiUrl}/v2/post/publish/creator_info/query/`,
    token: accessToken,
    json: {},
  });
  const d = res.body?.data ?? {};
  const max = Number(d.max_video_post_duration_sec);
  return {
    username: typeof d.creator_username === 'string' ? d.creator_username : null,
    nickname: typeof d.creator_nickname === 'string' ? d.creator_nickname : null,
    avatarUrl: typeof d.creator_avatar_url === 'string' ? d.creator_avatar_url : null,
    privacyLevelOptions: Array.isArray(d.privacy_level_options) ? d.privacy_level_options.map(String) : [],
    commentDisabled: d.comment_disabled === true,
    duetDisabled: d.duet_disabled === true,
    stitchDisabled: d.stitch_disabled === true,
    maxVideoPostDurationSec: Number.isFinite(max) && max > 0 ? max : null,
  };
}

/** The cached copy in an account's metadata, or null when the account has none (connected before it existed). */
export function cachedCreator(metadata: Record<string, unknown>): CreatorInfo | null {
  const c = metadata.creatorInfo as CreatorInfo | undefined;
  return c && typeof c === 'object' && Array.isArray(c.privacyLevelOptions) ? c : null;
}

export const PUBLIC = 'PUBLIC_TO_EVERYONE';

/** A reason the post cannot pass the creator's options: the field it concerns, TikTok's code, a sentence. */
export interface CreatorConflict {
  field: string;
  code: string;
  message: string;
}

/**
 * What in `psd` the creator's options refuse. `privacyLevel` must be one of the options (absent: public,
 * which must then be allowed); an interaction the creator disabled cannot be turned on (`allowComment`,
 * `allowDuet`, `allowStitch` set to true); duets and stitches concern videos only.
 */
export function creatorConflicts(
  psd: Record<string, unknown>,
  creator: CreatorInfo,
  kind: 'video' | 'photo',
): CreatorConflict[] {
  const out: CreatorConflict[] = [];
  const options = creator.privacyLevelOptions;
  const level = typeof psd.privacyLevel === 'string' ? psd.privacyLevel : null;
  if (options.length && !options.includes(level ?? PUBLIC)) {
    out.push({
      field: 'platformSpecificData.privacyLevel',
      code: 'privacy_level_option_mismatch',
      message: level
        ? `privacyLevel ${level} is not one this TikTok creator allows (${options.join(', ')})`
        : `this TikTok creator does not allow ${PUBLIC}: set privacyLevel to one of ${options.join(', ')}`,
    });
  }
  const disabled = (flag: boolean, key: string, what: string) => {
    if (flag && psd[key] === true)
      out.push({
        field: `platformSpecificData.${key}`,
        code: `${what}_disabled`,
        message: `this TikTok creator has turned ${what}s off: ${key} cannot be true`,
      });
  };
  disabled(creator.commentDisabled, 'allowComment', 'comment');
  if (kind === 'video') {
    disabled(creator.duetDisabled, 'allowDuet', 'duet');
    disabled(creator.stitchDisabled, 'allowStitch', 'stitch');
  }
  return out;
}

/** The same conflicts as one refusal at publish time, in TikTok's words (its code first). */
export function assertCreatorAllows(psd: Record<string, unknown>, creator: CreatorInfo, kind: 'video' | 'photo'): void {
  const [first] = creatorConflicts(psd, creator, kind);
  if (first)
    throw new PlatformError('rejected', `${first.message} (${first.code})`, {
      platformCode: first.code,
      endpoint: '/v2/post/publish/creator_info/query/',
    });
}
