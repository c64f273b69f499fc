import { describe, expect, it } from 'vitest';
import { graphemeLength, graphemes, isAscii } from '../../src/lib/graphemes.js';
import { countTweet } from '../../src/platforms/twitter/count.js';

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const exact = (text: string) => [...segmenter.segment(text)].length;

describe('grapheme counting', () => {
  it('counts ASCII text like Intl.Segmenter, CR LF pairs included', () => {
    const alphabet = ['a', 'Z', ' ', '\r', '\n', '\r\n', '\t', '#', '.', '\x00', '~'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 500; i++) {
      const text = Array.from({ length: next() % 40 }, () => alphabet[next() % alphabet.length]).join('');
      expect(isAscii(text)).toBe(true);
      expect(graphemeLength(text), JSON.stringify(text)).toBe(exact(text));
    }
  });

  it('counts emoji sequences, combining marks and CJK as clusters', () => {
    for (const text of ['👍🏽 ok', '👨‍👩‍👧', 'e\u0301te\u0301', '日本語', '🇩🇪\r\n🇫🇷', 'café']) {
      expect(isAscii(text)).toBe(false);
      expect(graphemeLength(text)).toBe(exact(text));
      expect(graphemes(text).join('')).toBe(text);
    }
  });

  it('weighs ASCII for X by code points (CR LF is two) and emoji as 2', () => {
    expect(countTweet('hello\r\nworld').weightedLength).toBe(12);
    expect(countTweet('hi 👍🏽').weightedLength).toBe(5);
    expect(countTweet('日本').weightedLength).toBe(4);
  });
});
