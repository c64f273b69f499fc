/*
 * LinkedIn "little text" (the commentary format of the Posts API): the characters below are markup and
 * must be backslash-escaped when meant literally, or LinkedIn cuts the post short at them. Mentions are
 * the one markup Herald passes through: `@[Name](urn:li:person:...)` / `@[Name](urn:li:organization:...)`.
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/little-text-format
 */

const RESERVED = /[\\|{}@[\]()<>#*_~]/g;
const MENTION = /@\[([^\]]+)\]\((urn:li:(?:person|organization):[A-Za-z0-9_-]+)\)/g;

export interface LittleText {
  commentary: string;
  mentions: { name: string; urn: string }[];
}

function escapePlain(text: string): string {
  return text.replace(RESERVED, (c) => `\\${c}`);
}

/** Escapes text for `commentary`, keeping well-formed mentions as mentions. */
export function toLittleText(text: string): LittleText {
  const mentions: { name: string; urn: string }[] = [];
  let out = '';
  let last = 0;
  for (const m of text.matchAll(MENTION)) {
    out += escapePlain(text.slice(last, m.index));
    // The name inside a mention is escaped too, except for its brackets.
    out += `@[${m[1].replace(/[\\|{}@[\]()<>#*_~]/g, (c) => `\\${c}`)}](${m[2]})`;
    mentions.push({ name: m[1], urn: m[2] });
    last = m.index! + m[0].length;
  }
  out += escapePlain(text.slice(last));
  return { commentary: out, mentions };
}

/** The original text of a commentary: escapes removed, mentions left in their `@[Name](urn)` form. */
export function fromLittleText(commentary: string): string {
  return commentary.replace(/\\(.)/g, '$1');
}
