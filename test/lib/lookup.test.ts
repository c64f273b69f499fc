import { describe, expect, it } from 'vitest';
import { isPlanId, planOf } from '../../src/domain/plans.js';
import { mediaFormat, mediaKind } from '../../src/platforms/rules/helpers.js';
import { contentTypeOfKey } from '../../src/domain/media/types.js';
import { lookup } from '../../src/lib/lookup.js';

/* Strings from requests used as keys of constant tables: what Object.prototype has is not an entry. */

const INHERITED = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];

describe('lookup in constant tables', () => {
  it('answers own entries only', () => {
    const table = { png: 'image/png' };
    expect(lookup(table, 'png')).toBe('image/png');
    for (const key of INHERITED) expect(lookup(table, key)).toBeUndefined();
  });

  it('media formats: an inherited name as MIME type, extension or file name is no format', () => {
    for (const name of INHERITED) {
      expect(mediaFormat({ url: `https://cdn.example/a.${name}`, mimeType: name } as any)).toBeNull();
      expect(mediaFormat({ url: 'https://cdn.example/a', filename: `a.${name}` } as any)).toBeNull();
      expect(mediaKind({ url: `https://cdn.example/a.${name}` } as any)).toBeNull();
    }
    expect(mediaFormat({ url: 'https://cdn.example/a', mimeType: 'constructor', filename: 'a.png' } as any)).toBe(
      'png',
    );
  });

  it('a stored key with an inherited name as extension is served as octet-stream', () => {
    expect(contentTypeOfKey('abc/x.constructor')).toBe('application/octet-stream');
    expect(contentTypeOfKey('abc/x.png')).toBe('image/png');
  });

  it('plan names', () => {
    for (const name of INHERITED) {
      expect(isPlanId(name)).toBe(false);
      expect(planOf(name)).toBe(planOf('free'));
    }
  });
});
