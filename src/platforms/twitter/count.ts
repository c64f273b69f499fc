import { graphemeSegments, isAscii } from '../../lib/graphemes.js';

/*
 * X's weighted post length (the rules of the open-source twitter-text "v3" configuration, restated):
 * the text is NFC-normalised; every URL counts as 23; an emoji sequence (one grapheme) weighs 2; any
 * other code point weighs 1 inside the Latin/punctuation ranges below and 2 elsewhere (CJK, etc.).
 * The limit is 280. https://docs.x.com/fundamentals/counting-characters
 */

export const TWEET_MAX_WEIGHTED_LENGTH = 280;
const TWEET_URL_LENGTH = 23;

/** Code point ranges that weigh 1 (everything else weighs 2). */
const LIGHT_RANGES: [number, number][] = [
  [0x0000, 0x10ff], // Latin, Greek, Cyrillic, Hebrew, Arabic, ... up to Georgian
  [0x2000, 0x200d], // spaces and zero-width joiners
  [0x2010, 0x201f], // dashes and quotes
  [0x2032, 0x2037], // primes
];

const TLDS =
  'com|org|net|edu|gov|io|co|dev|app|ai|me|info|biz|xyz|tech|ly|gl|gg|tv|fm|uk|us|de|fr|es|it|nl|be|ch|at|se|no|dk|fi|pl|pt|ie|ca|au|nz|jp|cn|kr|in|br|mx|ru|eu|to|sh|so|id|site|online|blog|news|shop|store|page|link';

// http(s) URLs, and bare domains with a well-known TLD (followed by an optional path).
const URL_PATTERN = new RegExp(
  `(?:https?:\\/\\/[^\\s<>"]+)|(?:\\b(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\\.)+(?:${TLDS})\\b(?:\\/[^\\s<>"]*)?)`,
  'giu',
);

const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

function codePointWeight(cp: number): number {
  for (const [lo, hi] of LIGHT_RANGES) if (cp >= lo && cp <= hi) return 1;
  return 2;
}

/** Weight of text containing no URL. */
function plainWeight(text: string): number {
  // ASCII code points all weigh 1 (and CR LF, one cluster, is two code points).
  if (isAscii(text)) return text.length;
  let weight = 0;
  for (const segment of graphemeSegments(text)) {
    if (EMOJI.test(segment)) {
      weight += 2;
      continue;
    }
    for (const ch of segment) weight += codePointWeight(ch.codePointAt(0)!);
  }
  return weight;
}

export interface TweetLength {
  /** Weighted length as X counts it. */
  weightedLength: number;
  /** True when weightedLength is within the limit (and the text is not empty). */
  valid: boolean;
  /** URLs found (each counted as 23). */
  urls: string[];
}

/** Weighted length of a post text; `max` defaults to 280 (premium accounts may post longer). */
export function countTweet(text: string, max = TWEET_MAX_WEIGHTED_LENGTH): TweetLength {
  const normalized = text.normalize('NFC');
  const urls: string[] = [];
  let weight = 0;
  let last = 0;
  for (const match of normalized.matchAll(URL_PATTERN)) {
    // Trailing punctuation closes a sentence rather than belonging to the URL.
    const url = match[0].replace(/[.,:;!?)\]'"]+$/u, '');
    weight += plainWeight(normalized.slice(last, match.index));
    weight += TWEET_URL_LENGTH;
    urls.push(url);
    last = match.index! + url.length;
  }
  weight += plainWeight(normalized.slice(last));
  return { weightedLength: weight, valid: weight > 0 && weight <= max, urls };
}

/** Shorthand: the weighted length only. */
export function tweetLength(text: string): number {
  return countTweet(text).weightedLength;
}
