/*
 * Text length as each platform counts it.
 */

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const PICTOGRAPHIC = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;
// X counts every URL as a t.co link of 23 characters (https://docs.x.com/resources/fundamentals/counting-characters).
const URL_RE = /\b(?:https?:\/\/|www\.)[^\s<>"]+/giu;
const X_URL_LENGTH = 23;

export function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

export function graphemeLength(text: string): number {
  let n = 0;
  for (const _ of segmenter.segment(text)) n++;
  return n;
}

export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Code points X weighs 1 (Latin, general punctuation...); everything else, CJK included, weighs 2. */
function xCodePointWeight(cp: number): number {
  if (cp <= 0x10ff) return 1;
  if (cp >= 0x2000 && cp <= 0x200d) return 1;
  if (cp >= 0x2010 && cp <= 0x201f) return 1;
  if (cp >= 0x2032 && cp <= 0x2037) return 1;
  return 2;
}

/**
 * X's weighted length (twitter-text v3 configuration): text is NFC-normalised, each URL counts 23, an
 * emoji (a whole grapheme cluster, however many code points) counts 2, other code points 1 or 2.
 */
export function xWeightedLength(text: string): number {
  let total = 0;
  const withoutUrls = text.normalize('NFC').replace(URL_RE, () => {
    total += X_URL_LENGTH;
    return '';
  });
  for (const g of graphemes(withoutUrls)) {
    if (PICTOGRAPHIC.test(g)) {
      total += 2;
      continue;
    }
    for (const ch of g) total += xCodePointWeight(ch.codePointAt(0)!);
  }
  return total;
}

/** Threads counts characters, but an emoji counts as its UTF-8 byte length (platforms.md, Threads limits). */
export function threadsLength(text: string): number {
  let total = 0;
  for (const g of graphemes(text)) total += PICTOGRAPHIC.test(g) ? utf8Length(g) : 1;
  return total;
}

export function hashtagCount(text: string): number {
  return (text.match(/(^|\s)#[\p{L}\p{N}_]+/gu) ?? []).length;
}
