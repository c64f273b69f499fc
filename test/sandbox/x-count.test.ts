import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tweetLength } from '../../src/platforms/twitter/count.js';
import { xTextTooLong, xWeightedLength } from '../../src/sandbox/twitter/count.js';

/* The X simulator counts text by X's documented rules itself, so it can catch a counting bug in the adapter. */

const SAMPLES = [
  'hello',
  '日本語のテキスト',
  '👍',
  '👨‍👩‍👧‍👦 family',
  '🇫🇷 flag and 1️⃣ keycap',
  'café and cafe\u0301 (combining)',
  'see https://example.com/a/very/long/path?with=query.',
  'bare example.com and www.example.org/path, then text',
  'Привет, мир',
  '“quotes” — dashes… and ′primes′',
];

describe('the X simulator counts text itself', () => {
  it('agrees with the adapter on emoji, CJK, combining marks and URLs', () => {
    for (const text of SAMPLES) expect(xWeightedLength(text), text).toBe(tweetLength(text));
  });

  it('takes 280 weighted characters and refuses 281', () => {
    expect(xWeightedLength('a'.repeat(280))).toBe(280);
    expect(xTextTooLong('a'.repeat(280))).toBe(false);
    expect(xTextTooLong('a'.repeat(279) + '日')).toBe(true);
    expect(xTextTooLong('日'.repeat(140))).toBe(false);
    expect(xTextTooLong('👍'.repeat(141))).toBe(true);
    expect(xTextTooLong(`${'a'.repeat(256)} https://example.com/${'x'.repeat(100)}`)).toBe(false);
  });

  it('no simulator imports adapter code', () => {
    const root = join(__dirname, '../../src/sandbox');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    for (const f of files) expect(readFileSync(join(root, f), 'utf8'), f).not.toMatch(/from '(\.\.\/)+platforms\//);
  });
});
