/**
 * Rich-text facets of an `app.bsky.feed.post`: links, mentions and hashtags, each addressed by UTF-8
 * BYTE offsets into the text (not UTF-16 indexes): https://docs.bsky.app/docs/advanced-guides/post-richtext
 */

type FacetFeature =
  | { $type: 'app.bsky.richtext.facet#link'; uri: string }
  | { $type: 'app.bsky.richtext.facet#mention'; did: string }
  | { $type: 'app.bsky.richtext.facet#tag'; tag: string };

export interface Facet {
  index: { byteStart: number; byteEnd: number };
  features: FacetFeature[];
}

/** A span of the text found by `detectSpans`, before mentions are resolved to DIDs. */
export interface Span {
  kind: 'link' | 'mention' | 'tag';
  /** UTF-16 index and length in the JS string. */
  start: number;
  end: number;
  /** The URL, the handle (without @) or the tag (without #). */
  value: string;
}

const URL_RE = /(^|[\s(])(https?:\/\/[^\s]+)/giu;
// Handles are domain names: at least two labels (https://atproto.com/specs/handle).
const MENTION_RE = /(^|[\s(])@([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+)/giu;
const TAG_RE = /(^|\s)[#＃]([^\s#＃]+)/gu;
const TRAILING_PUNCT = /[.,;:!?'"]+$/u;
/** Bluesky's limit on a tag: 64 graphemes (we count code points, which is never more). */
const MAX_TAG = 64;

export function detectSpans(text: string): Span[] {
  const spans: Span[] = [];
  for (const m of text.matchAll(URL_RE)) {
    let url = m[2].replace(TRAILING_PUNCT, '');
    // A closing parenthesis belongs to the URL only when the URL opened one: "(see https://x.y/a)".
    if (url.endsWith(')') && !url.includes('(')) url = url.slice(0, -1).replace(TRAILING_PUNCT, '');
    const start = m.index! + m[1].length;
    spans.push({ kind: 'link', start, end: start + url.length, value: url });
  }
  for (const m of text.matchAll(MENTION_RE)) {
    const start = m.index! + m[1].length;
    spans.push({ kind: 'mention', start, end: start + 1 + m[2].length, value: m[2].toLowerCase() });
  }
  for (const m of text.matchAll(TAG_RE)) {
    const tag = m[2].replace(/\p{P}+$/u, '');
    // A bare number is not a tag ("#1"), and a tag has a length limit.
    if (!tag || /^\d+$/.test(tag) || [...tag].length > MAX_TAG) continue;
    const start = m.index! + m[1].length;
    spans.push({ kind: 'tag', start, end: start + 1 + tag.length, value: tag });
  }
  spans.sort((a, b) => a.start - b.start);
  // Overlaps (an @ or # inside a URL cannot match, but be safe): keep the first.
  return spans.filter((s, i) => i === 0 || s.start >= spans[i - 1].end);
}

/** UTF-8 byte offset of a UTF-16 index. */
function byteOffset(text: string, index: number): number {
  return Buffer.byteLength(text.slice(0, index), 'utf8');
}

/**
 * Builds the facets of a text. `resolveHandle` turns a handle into a DID (null when it does not exist:
 * the mention then stays plain text, as the Bluesky app does).
 */
export async function buildFacets(
  text: string,
  resolveHandle: (handle: string) => Promise<string | null>,
): Promise<Facet[]> {
  const facets: Facet[] = [];
  const dids = new Map<string, string | null>();
  for (const span of detectSpans(text)) {
    const index = { byteStart: byteOffset(text, span.start), byteEnd: byteOffset(text, span.end) };
    if (span.kind === 'link') {
      facets.push({ index, features: [{ $type: 'app.bsky.richtext.facet#link', uri: span.value }] });
    } else if (span.kind === 'tag') {
      facets.push({ index, features: [{ $type: 'app.bsky.richtext.facet#tag', tag: span.value }] });
    } else {
      if (!dids.has(span.value)) dids.set(span.value, await resolveHandle(span.value));
      const did = dids.get(span.value);
      if (did) facets.push({ index, features: [{ $type: 'app.bsky.richtext.facet#mention', did }] });
    }
  }
  return facets;
}

/** The first link of a text (for a link card), if any. */
export function firstLink(text: string): string | null {
  return detectSpans(text).find((s) => s.kind === 'link')?.value ?? null;
}

/** Grapheme count (Bluesky limits post text to 300 graphemes and 3,000 bytes). */
export { graphemeLength } from '../../lib/graphemes.js';
