import { describe, expect, it } from 'vitest';
import { buildFacets, detectSpans, firstLink, graphemeLength } from '../../../src/platforms/bluesky/facets.js';

const cut = (text: string, f: { index: { byteStart: number; byteEnd: number } }) =>
  Buffer.from(text).subarray(f.index.byteStart, f.index.byteEnd).toString();

describe('Bluesky facets', () => {
  it('leaves trailing punctuation and an unopened parenthesis out of links', () => {
    const text = 'see (https://a.example/x) and https://b.example/y?q=1, then https://c.example/(z).';
    expect(detectSpans(text).map((s) => s.value)).toEqual([
      'https://a.example/x',
      'https://b.example/y?q=1',
      'https://c.example/(z)',
    ]);
  });

  it('takes tags with letters, not bare numbers, without trailing punctuation', () => {
    const spans = detectSpans('#one, #2 #v2! #日本語 mid#not');
    expect(spans.filter((s) => s.kind === 'tag').map((s) => s.value)).toEqual(['one', 'v2', '日本語']);
  });

  it('does not see a mention or a tag inside a URL', () => {
    const spans = detectSpans('https://x.example/@bob.example/#frag');
    expect(spans.map((s) => s.kind)).toEqual(['link']);
  });

  it('addresses facets by UTF-8 bytes after multi-byte characters', async () => {
    const text = '👩‍👩‍👧 ünïcode @al.example #tag';
    const facets = await buildFacets(text, async (h) => (h === 'al.example' ? 'did:plc:al' : null));
    expect(facets.map((f) => cut(text, f))).toEqual(['@al.example', '#tag']);
    expect(facets[0].index.byteStart).toBe(Buffer.byteLength('👩‍👩‍👧 ünïcode '));
    expect(facets[0].features).toEqual([{ $type: 'app.bsky.richtext.facet#mention', did: 'did:plc:al' }]);
  });

  it('keeps an unresolvable mention as plain text and resolves each handle once', async () => {
    const asked: string[] = [];
    const facets = await buildFacets('@a.example @A.example @gone.example', async (h) => {
      asked.push(h);
      return h === 'a.example' ? 'did:plc:a' : null;
    });
    expect(facets).toHaveLength(2);
    expect(asked).toEqual(['a.example', 'gone.example']);
  });

  it('counts graphemes, not code units', () => {
    expect(graphemeLength('👩‍👩‍👧é')).toBe(2);
    expect(firstLink('no links here')).toBeNull();
  });
});

describe('image sizes for aspectRatio', () => {
  it('reads PNG, JPEG, GIF and WebP headers', async () => {
    const { imageSize } = await import('../../../src/platforms/bluesky/image-size.js');
    const sharp = (await import('sharp')).default;
    const make = (format: 'png' | 'jpeg' | 'gif' | 'webp') =>
      sharp({ create: { width: 37, height: 21, channels: 3, background: { r: 1, g: 2, b: 3 } } })
        .toFormat(format)
        .toBuffer();
    for (const format of ['png', 'jpeg', 'gif', 'webp'] as const) {
      expect(imageSize(await make(format))).toEqual({ width: 37, height: 21 });
    }
    expect(imageSize(Buffer.from('not an image'))).toBeNull();
  });
});
