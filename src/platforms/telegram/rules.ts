import { bool, issue, oneOf } from '../rules/helpers.js';
import { MB, type PlatformMediaLimits } from '../rules/media-limits.js';
import { utf16Length } from '../rules/text.js';
import type { RuleIssue, TargetDraft, TextRule } from '../rules/types.js';

/*
 * Telegram's rules, used by validation (through the descriptor) and by the adapter alike. The Bot API
 * measures text in UTF-16 units (its entity offsets are UTF-16 too): a message holds 4,096, a media
 * caption 1,024. Longer text with media is sent as its own message after the media, so a target's
 * text may be 4,096 either way.
 */

export const PARSE_MODES = ['HTML', 'Markdown', 'MarkdownV2'] as const;
export const TEXT: TextRule = { unit: 'characters (UTF-16 units)', limit: 4096, count: utf16Length };
export const CAPTION_LIMIT = 1024;
/** An album is 2-10 items. */
export const ALBUM_MAX = 10;

export const PLATFORM_SPECIFIC_DATA = {
  parseMode: oneOf(...PARSE_MODES),
  disableWebPagePreview: bool,
  disableNotification: bool,
  protectContent: bool,
};

export function checkTarget(t: TargetDraft): RuleIssue[] {
  return t.media.length > ALBUM_MAX ? [issue('mediaItems', 'media_count', `at most ${ALBUM_MAX} media items`)] : [];
}

/** Uploaded by Herald (multipart): photos 10 MB, other files 50 MB. */
export function mediaLimits(): PlatformMediaLimits {
  return {
    image: { maxBytes: 10 * MB, maxWidthPlusHeight: 10_000 },
    video: { maxBytes: 50 * MB },
    document: { maxBytes: 50 * MB },
  };
}
