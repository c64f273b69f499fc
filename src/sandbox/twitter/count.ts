/*
 * The simulator's own reading of X's post-length rules (https://docs.x.com/fundamentals/counting-characters
 * and the published twitter-text v3 configuration), written apart from the adapter's counter so that a
 * counting bug in either shows up as a disagreement:
 * - the text is NFC-normalised first;
 * - weights are in hundredths: a code point in the ranges below weighs 100, any other 200; the limit is
 *   280 * 100 (scale 100);
 * - a URL weighs 23 whatever its length (transformedURLLength), http(s) or a bare domain with a known
 *   top-level domain;
 * - an emoji (a whole sequence: ZWJ families, flags, keycaps, skin tones) weighs 200.
 */

const SCALE = 100;
const DEFAULT_WEIGHT = 200;
const MAX_WEIGHTED_LENGTH = 280;
const URL_WEIGHT = 23 * SCALE;
const EMOJI_WEIGHT = 200;
const RANGES: Array<{ start: number; end: number; weight: number }> = [
  { start: 0, end: 4351, weight: 100 },
  { start: 8192, end: 8205, weight: 100 },
  { start: 8208, end: 8223, weight: 100 },
  { start: 8242, end: 8247, weight: 100 },
];

const KNOWN_TLDS = new Set(
  (
    'com net org edu gov mil int info biz name pro io co dev app ai me tv fm gg ly gl to sh so id xyz tech site online blog news ' +
    'shop store page link cloud email art design live life world today media social club space top uk us de fr es it nl be ch at se no ' +
    'dk fi pl pt ie ca au nz jp cn kr in br mx ru eu ar cl za tr gr cz hu ro il sg hk tw vn th my ph'
  ).split(' '),
);

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

function weightOf(codePoint: number): number {
  const range = RANGES.find((r) => codePoint >= r.start && codePoint <= r.end);
  return range ? range.weight : DEFAULT_WEIGHT;
}

/** Start and end offsets of each URL in `text` (trailing sentence punctuation left out). */
function urlSpans(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const candidate =
    /(?:https?:\/\/)?(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+([a-z]{2,})(?::\d+)?(?:\/[^\s]*)?/giu;
  for (const m of text.matchAll(candidate)) {
    const explicit = /^https?:\/\//i.test(m[0]);
    if (!explicit && !KNOWN_TLDS.has(m[1].toLowerCase())) continue;
    // A URL is a word of its own: not glued to the letters before it.
    const before = m.index! > 0 ? text[m.index! - 1] : ' ';
    if (!explicit && /[\p{L}\p{N}@._-]/u.test(before)) continue;
    let end = m.index! + m[0].length;
    while (end > m.index! && /[.,:;!?'")\]]/.test(text[end - 1])) end--;
    spans.push([m.index!, end]);
  }
  return spans;
}

/** The weighted length of a post text, in X's characters (weight / scale, rounded down). */
export function xWeightedLength(input: string): number {
  const text = input.normalize('NFC');
  let weight = 0;
  let at = 0;
  const count = (part: string) => {
    for (const { segment } of segmenter.segment(part)) {
      if (EMOJI.test(segment)) {
        weight += EMOJI_WEIGHT;
        continue;
      }
      for (const ch of segment) weight += weightOf(ch.codePointAt(0)!);
    }
  };
  for (const [start, end] of urlSpans(text)) {
    count(text.slice(at, start));
    weight += URL_WEIGHT;
    at = end;
  }
  count(text.slice(at));
  return Math.floor(weight / SCALE);
}

export function xTextTooLong(text: string): boolean {
  return xWeightedLength(text) > MAX_WEIGHTED_LENGTH;
}
