/*
 * Text length as each platform counts it.
 */
import { graphemeLength, graphemes, isAscii } from '../../../lib/graphemes.js';
import { countTweet } from '../../../platforms/twitter/count.js';

export { graphemeLength, graphemes };

const PICTOGRAPHIC = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * X's weighted length (twitter-text v3 configuration): text is NFC-normalised, each URL counts 23, an
 * emoji (a whole grapheme cluster, however many code points) counts 2, other code points 1 or 2.
 */
export function xWeightedLength(text: string): number {
  // One implementation for the API's check and the X adapter's, so they never disagree.
  return countTweet(text).weightedLength;
}

/** Threads counts characters, but an emoji counts as its UTF-8 byte length (platforms.md, Threads limits). */
export function threadsLength(text: string): number {
  if (isAscii(text)) return graphemeLength(text);
  let total = 0;
  for (const g of graphemes(text)) total += PICTOGRAPHIC.test(g) ? utf8Length(g) : 1;
  return total;
}

export function hashtagCount(text: string): number {
  return (text.match(/(^|\s)#[\p{L}\p{N}_]+/gu) ?? []).length;
}
