import { arrayOf, bool, httpUrl, int, issue, object, str, threadItemsCheck } from '../rules/helpers.js';
import { MB, type PlatformMediaLimits } from '../rules/media-limits.js';
import { characters } from '../rules/text.js';
import type { FieldCheck } from '../rules/helpers.js';
import type { RuleIssue, TargetDraft, TextRule } from '../rules/types.js';

/*
 * Discord's rules, used by validation (through the descriptor) and by the adapter alike.
 * https://discord.com/developers/docs/resources/message#create-message: `content` holds up to 2,000
 * characters (Discord counts code points), at most 10 embeds of 6,000 characters together, at most 10
 * files. https://discord.com/developers/docs/reference#uploading-files: each file up to the channel's
 * upload limit, 10 MiB without server boosts.
 */

export const TEXT: TextRule = characters(2000);
export const MAX_FILES = 10;
export const MAX_EMBEDS = 10;
export const EMBED_TOTAL = 6000;
/** A thread's name: 1-100 characters (https://discord.com/developers/docs/resources/channel#start-thread-from-message). */
export const THREAD_NAME_MAX = 100;
export const ARCHIVE_DURATIONS = [60, 1440, 4320, 10080] as const;

/** Channel types a post can go to: text (0), announcement (5), forum (15). */
export const POSTABLE_CHANNEL_TYPES = [0, 5, 15] as const;
export const ANNOUNCEMENT_CHANNEL = 5;
export const FORUM_CHANNEL = 15;

const snowflake: FieldCheck = (v) =>
  typeof v === 'string' && /^\d{15,21}$/.test(v) ? null : 'must be a Discord snowflake id (15-21 digits)';

const embed = object({
  title: str(256),
  description: str(4096),
  url: httpUrl,
  color: int(0, 0xffffff),
  image: object({ url: httpUrl }),
  thumbnail: object({ url: httpUrl }),
  footer: object({ text: str(2048), icon_url: httpUrl }),
  author: object({ name: str(256), url: httpUrl, icon_url: httpUrl }),
  fields: arrayOf(object({ name: str(256), value: str(1024), inline: bool }, ['name', 'value']), 25),
});

export const PLATFORM_SPECIFIC_DATA = {
  /** Messages posted in a thread started from the first (each of 2,000 characters and 10 attachments). */
  threadItems: threadItemsCheck,
  channelId: snowflake,
  embeds: arrayOf(embed, MAX_EMBEDS),
  poll: object({
    question: object({ text: str(300) }, ['text']),
    answers: arrayOf(object({ poll_media: object({ text: str(55) }) }), 10),
    duration: int(1, 768),
    allow_multiselect: bool,
  }),
  crosspost: bool,
  forumThreadName: str(THREAD_NAME_MAX),
  forumAppliedTags: arrayOf(snowflake, 5),
  threadFromMessage: object({
    name: str(THREAD_NAME_MAX),
    autoArchiveDuration: oneOfNumbers(ARCHIVE_DURATIONS),
    rateLimitPerUser: int(0, 21600),
  }),
  tts: bool,
  webhookUsername: str(80),
  webhookAvatarUrl: httpUrl,
};

function oneOfNumbers(values: readonly number[]): FieldCheck {
  return (v) => (typeof v === 'number' && values.includes(v) ? null : `must be one of: ${values.join(', ')}`);
}

/** Characters an embed counts toward the 6,000 of a message (title, description, fields, footer, author). */
export function embedCharacters(embeds: Array<Record<string, unknown>>): number {
  let n = 0;
  const len = (s: unknown) => (typeof s === 'string' ? [...s].length : 0);
  const inner = (o: unknown, key: string) =>
    o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined;
  for (const e of embeds) {
    n += len(e.title) + len(e.description) + len(inner(e.footer, 'text')) + len(inner(e.author, 'name'));
    for (const f of (e.fields as Array<Record<string, unknown>> | undefined) ?? []) n += len(f.name) + len(f.value);
  }
  return n;
}

export function checkTarget(t: TargetDraft): RuleIssue[] {
  const psd = t.platformSpecificData;
  const issues: RuleIssue[] = [];
  if (t.media.length > MAX_FILES) issues.push(issue('mediaItems', 'media_count', `at most ${MAX_FILES} attachments`));
  const embeds = Array.isArray(psd.embeds) ? (psd.embeds as Array<Record<string, unknown>>) : [];
  if (embedCharacters(embeds) > EMBED_TOTAL)
    issues.push(
      issue('platformSpecificData.embeds', 'embed_length', `embeds hold at most ${EMBED_TOTAL} characters together`),
    );
  if (psd.poll !== undefined && t.media.length > 0)
    issues.push(issue('platformSpecificData.poll', 'poll_media', 'a poll cannot be sent with attachments'));
  if (!t.content.trim() && t.media.length === 0 && embeds.length === 0 && psd.poll === undefined) {
    issues.push(issue('content', 'empty', 'a Discord message needs text, an attachment, an embed or a poll'));
  }
  return issues;
}

/** Attachments are uploaded by Herald (multipart `files[n]`): 10 MiB each, the upload limit of an unboosted server. */
export function mediaLimits(): PlatformMediaLimits {
  return { image: { maxBytes: 10 * MB }, video: { maxBytes: 10 * MB }, document: { maxBytes: 10 * MB } };
}
