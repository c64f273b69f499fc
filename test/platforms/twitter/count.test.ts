import { describe, expect, it } from 'vitest';
import { countTweet, tweetLength } from '../../../src/platforms/twitter/count.js';

describe('countTweet (X weighted length)', () => {
  it('counts Latin text one per character', () => {
    expect(tweetLength('hello world')).toBe(11);
  });

  it('counts every URL as 23, whatever its length', () => {
    expect(tweetLength('see https://example.com/a/very/long/path?with=query&and=more')).toBe(4 + 23);
    expect(tweetLength('short http://x.co')).toBe(6 + 23);
    expect(countTweet('bare example.com/page and www.herald.dev.').urls).toEqual([
      'example.com/page',
      'www.herald.dev',
    ]);
  });

  it('weighs CJK characters and emoji 2, an emoji sequence once', () => {
    expect(tweetLength('漢字')).toBe(4);
    expect(tweetLength('😀')).toBe(2);
    // family emoji: several code points joined by ZWJ, one grapheme
    expect(tweetLength('👨‍👩‍👧')).toBe(2);
    expect(tweetLength('🇫🇷')).toBe(2);
  });

  it('accepts 280 and refuses 281 weighted characters', () => {
    expect(countTweet('a'.repeat(280)).valid).toBe(true);
    expect(countTweet('a'.repeat(281)).valid).toBe(false);
    expect(countTweet('漢'.repeat(140)).valid).toBe(true);
    expect(countTweet('漢'.repeat(141)).valid).toBe(false);
    expect(countTweet(`${'a'.repeat(256)} https://example.com/${'x'.repeat(200)}`).weightedLength).toBe(280);
  });

  it('normalises to NFC before counting', () => {
    expect(tweetLength('e\u0301')).toBe(1);
  });

  it('treats empty text as invalid', () => {
    expect(countTweet('').valid).toBe(false);
  });
});
