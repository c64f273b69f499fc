import { describe, expect, it } from 'vitest';
import { forbiddenKeyPath, jsonDepthExceeds, MAX_JSON_DEPTH } from '../../src/lib/json-guards.js';

describe('JSON body checks', () => {
  it('counts nesting of objects and arrays, not brackets inside strings', () => {
    const nested = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
    expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(jsonDepthExceeds(JSON.stringify({ text: '['.repeat(500), q: 'a\\"[[[' }), MAX_JSON_DEPTH)).toBe(false);
    expect(jsonDepthExceeds('[[],[],[[]]]', 3)).toBe(false);
    expect(jsonDepthExceeds('[[],[],[[]]]', 2)).toBe(true);
  });

  it('finds a prototype key anywhere, and nothing in an ordinary body', () => {
    expect(forbiddenKeyPath(JSON.parse('{"a":[{"b":{"__proto__":{}}}]}'))).toBe('a.0.b.__proto__');
    expect(forbiddenKeyPath(JSON.parse('{"constructor":{"prototype":{"x":1}}}'))).toBe('constructor.prototype');
    expect(forbiddenKeyPath(JSON.parse('{"constructor":"fine","proto":1,"a":[1,"__proto__"]}'))).toBeNull();
  });
});
