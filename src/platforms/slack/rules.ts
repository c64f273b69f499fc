import { arrayOf, bool, httpUrl, issue, object, str, threadItemsCheck } from '../rules/helpers.js';
import { GB, type PlatformMediaLimits } from '../rules/media-limits.js';
import { codePointLength } from '../rules/text.js';
import type { RuleIssue, TargetDraft, TextRule } from '../rules/types.js';

/*
 * Slack's rules, used by validation (through the descriptor) and by the adapter alike.
 *
 * - Text: chat.postMessage takes up to 40,000 characters and answers `msg_too_long` beyond
 *   (https://api.slack.com/methods/chat.postMessage#truncating). Herald sends the text escaped for
 *   mrkdwn (&, <, > become &amp; &lt; &gt;, https://api.slack.com/reference/surfaces/formatting#escaping),
 *   so the limit is counted on the escaped text, in Unicode code points, the way the simulator counts it.
 * - Blocks: at most 50 per message (https://api.slack.com/reference/block-kit/blocks); a section's
 *   text at most 3,000 characters (https://api.slack.com/reference/block-kit/blocks#section), a
 *   header's 150.
 * - Files: up to 10 per post (the hosted API's limit), each at most 1 GB
 *   (https://api.slack.com/methods/files.getUploadURLExternal: `length` in bytes; Slack's file limit).
 */

const TEXT_LIMIT = 40_000;
const MAX_BLOCKS = 50;
const SECTION_TEXT_LIMIT = 3_000;
const HEADER_TEXT_LIMIT = 150;
const MAX_FILES = 10;

/** mrkdwn control characters as Slack wants them escaped in text Herald did not write as markup. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export const TEXT: TextRule = {
  unit: 'characters (Unicode code points, after escaping &, < and >)',
  limit: TEXT_LIMIT,
  count: (text) => codePointLength(escapeMrkdwn(text)),
};

const block = object({ type: str(64) }, ['type']);

export const PLATFORM_SPECIFIC_DATA = {
  threadTs: str(32),
  unfurlLinks: bool,
  unfurlMedia: bool,
  username: str(80),
  iconUrl: httpUrl,
  /** Herald's extension: Block Kit blocks sent with the text (the text becomes the notification fallback). */
  blocks: arrayOf(block),
  threadItems: threadItemsCheck,
};

/** Block Kit limits Slack enforces with `invalid_blocks`, so a post is refused before it is queued. */
export function blockIssues(blocks: unknown): RuleIssue[] {
  if (!Array.isArray(blocks)) return [];
  const issues: RuleIssue[] = [];
  if (blocks.length > MAX_BLOCKS)
    issues.push(
      issue('platformSpecificData.blocks', 'max_blocks', `Slack takes at most ${MAX_BLOCKS} blocks per message`),
    );
  blocks.forEach((b, i) => {
    const text = (b as { text?: { text?: unknown } })?.text?.text;
    const type = (b as { type?: unknown })?.type;
    const limit = type === 'section' ? SECTION_TEXT_LIMIT : type === 'header' ? HEADER_TEXT_LIMIT : null;
    if (limit !== null && typeof text === 'string' && codePointLength(text) > limit) {
      issues.push(
        issue(
          `platformSpecificData.blocks[${i}].text.text`,
          'block_text_length',
          `a ${type} block's text is at most ${limit} characters`,
        ),
      );
    }
  });
  return issues;
}

export function checkTarget(t: TargetDraft): RuleIssue[] {
  const issues = blockIssues(t.platformSpecificData.blocks);
  if (t.media.length > MAX_FILES)
    issues.push(issue('mediaItems', 'media_count', `at most ${MAX_FILES} files per Slack message`));
  if (!t.content.trim() && t.media.length === 0 && !Array.isArray(t.platformSpecificData.blocks)) {
    issues.push(issue('content', 'required', 'a Slack message needs text, blocks or files'));
  }
  return issues;
}

/** Uploaded by Herald through Slack's external upload: 1 GB a file, any kind. */
export function mediaLimits(): PlatformMediaLimits {
  return { image: { maxBytes: 1 * GB }, video: { maxBytes: 1 * GB }, document: { maxBytes: 1 * GB } };
}
