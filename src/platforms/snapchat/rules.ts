import { countKinds, formatRule, issue, oneOf, type FieldCheck } from '../rules/helpers.js';
import { MB } from '../rules/media-limits.js';
import { characters } from '../rules/text.js';
import type { RuleIssue, TargetRule, TextRule } from '../rules/types.js';

/*
 * Snapchat's rules for a target (Public Profile API, https://developers.snap.com/api/marketing-api/Public-Profile-API/ProfileAssetManagement;
 * limits as https://docs.getlate.dev/platforms/snapchat states them): exactly one image (JPEG, PNG, <= 20 MB)
 * or MP4 video (<= 500 MB, 5 to 60 s, at least 540 x 960), no text-only post. `contentType`:
 * - `story` (default): the media alone, for 24 hours; a story has no caption, so the text is not sent;
 * - `saved_story`: kept on the profile, titled with the target's title or the text's first line (<= 45);
 * - `spotlight`: a video only; the text is its description, <= 160 characters, hashtags included.
 * The adapter applies the same checks (index.ts), so what validation accepts is never refused for them.
 */

export type SnapContentType = 'story' | 'saved_story' | 'spotlight';

/** A spotlight's description (the text), the one text Snapchat shows: 160 characters, hashtags included. */
export const TEXT: TextRule = characters(160);
/** A saved story's title. */
const TITLE_MAX = 45;

export const PLATFORM_SPECIFIC_DATA: Record<string, FieldCheck> = {
  contentType: oneOf('story', 'saved_story', 'spotlight'),
};

export function contentTypeOf(psd: Record<string, unknown>): SnapContentType {
  return psd.contentType === 'saved_story' || psd.contentType === 'spotlight' ? psd.contentType : 'story';
}

/** What is wrong with a target's media for `type`, or null: the one rule validation and the adapter share. */
export function mediaProblem(
  kinds: { image: number; video: number; gif: number; document: number },
  total: number,
  type: SnapContentType,
): { rule: string; message: string } | null {
  if (total !== 1 || kinds.image + kinds.video !== 1)
    return {
      rule: 'media_required',
      message: 'Snapchat needs exactly one image or video (no text-only posts, GIFs or documents)',
    };
  if (type === 'spotlight' && kinds.video !== 1) return { rule: 'spotlight_media', message: 'a spotlight is a video' };
  return null;
}

export const checkTarget: TargetRule = (t) => {
  const issues: RuleIssue[] = [];
  const problem = mediaProblem(countKinds(t.media), t.media.length, contentTypeOf(t.platformSpecificData));
  if (problem) issues.push(issue('mediaItems', problem.rule, problem.message));
  issues.push(...formatRule(t, 'image', ['jpeg', 'png']), ...formatRule(t, 'video', ['mp4']));
  return issues;
};

/** The same limits for every content type (images: 20 MB; videos: 500 MB, 5 to 60 s, at least 540 x 960). */
export const mediaLimits = () => ({
  image: { maxBytes: 20 * MB },
  video: { maxBytes: 500 * MB, minDurationSec: 5, maxDurationSec: 60, minWidth: 540, minHeight: 960 },
});

/** A saved story's title: the target's title, else the text's first line, cut to 45 characters. */
export function savedStoryTitle(title: string | null | undefined, content: string): string {
  const source =
    title?.trim() ||
    content
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ||
    'Saved Story';
  return [...source].slice(0, TITLE_MAX).join('');
}
