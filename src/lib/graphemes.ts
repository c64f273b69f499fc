/*
 * Counting user-perceived characters (grapheme clusters). Intl.Segmenter is exact but costs about a
 * microsecond a character; most post text is ASCII, where every character is its own cluster except a
 * CR LF pair (one cluster), so that case is counted directly.
 */

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const ASCII = /^[\x00-\x7f]*$/;

export function isAscii(text: string): boolean {
  return ASCII.test(text);
}

/** Grapheme clusters of `text` (Bluesky's limits are in these). */
export function graphemeLength(text: string): number {
  if (isAscii(text)) {
    let crlf = 0;
    for (let i = text.indexOf('\r\n'); i !== -1; i = text.indexOf('\r\n', i + 2)) crlf++;
    return text.length - crlf;
  }
  let n = 0;
  for (const _ of segmenter.segment(text)) n++;
  return n;
}

/** The clusters themselves. */
export function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/** The clusters one by one, without building an array. */
export function* graphemeSegments(text: string): Generator<string> {
  for (const { segment } of segmenter.segment(text)) yield segment;
}
