import { readAtMost } from '../io.js';
import type { PlatformIO } from '../types.js';

/** Bluesky does not unfurl links itself: the client sends the card (`app.bsky.embed.external`). */
export interface ExternalEmbed {
  $type: 'app.bsky.embed.external';
  external: { uri: string; title: string; description: string; thumb?: unknown };
}

/** Uploads a thumbnail's bytes (uploadBlob) and returns the blob ref. */
type ThumbUploader = (bytes: Uint8Array, contentType: string) => Promise<unknown>;

const THUMB_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'];
/** app.bsky.embed.external#external.thumb: an image of at most 1,000,000 bytes. */
const MAX_THUMB = 1_000_000;

/** Only the head of a page is read. */
const MAX_HTML = 256 * 1024;

function decodeEntities(s: string): string {
  return s
    .replace(/&#(\d+);/g, (_, n) => String.fromCodePoint(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n) => String.fromCodePoint(parseInt(n, 16)))
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

function meta(html: string, property: string): string | null {
  const tags = html.match(/<meta\b[^>]*>/gi) ?? [];
  for (const tag of tags) {
    const key = /\b(?:property|name)\s*=\s*["']([^"']+)["']/i.exec(tag)?.[1];
    if (key?.toLowerCase() !== property) continue;
    const content = /\bcontent\s*=\s*"([^"]*)"|\bcontent\s*=\s*'([^']*)'/i.exec(tag);
    if (content) return decodeEntities(content[1] ?? content[2] ?? '');
  }
  return null;
}

export interface LinkCardOptions {
  /** Uploads the og:image as the card's thumbnail. */
  uploadThumb?: ThumbUploader;
}

/**
 * NOTE: pages and images are read with `io.fetchUrl` (lib/outbound.ts): a link on a private, loopback or
 * link-local address (or redirecting to one) gets a card without a fetched title, since Herald must not
 * read an internal page and publish what it says.
 */
function safeFetch(io: PlatformIO, url: string, accept: string): Promise<Response> {
  return io.fetchUrl(url, { headers: { accept } });
}

/**
 * The card of a link: the page's og:title / <title> and og:description. A page that cannot be read
 * still gets a card with its address as the title (the post must not fail because a link is slow).
 */
export async function linkCard(io: PlatformIO, uri: string, opts: LinkCardOptions = {}): Promise<ExternalEmbed> {
  let title = '';
  let description = '';
  let image: string | null = null;
  try {
    const res = await safeFetch(io, uri, 'text/html');
    if (res.ok && (res.headers.get('content-type') ?? '').includes('html')) {
      // Only the head of a page is read: a link may point at anything, of any size.
      const html = (await readAtMost(res, MAX_HTML)).bytes.toString('utf8');
      title = meta(html, 'og:title') ?? decodeEntities(/<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1] ?? '');
      description = meta(html, 'og:description') ?? meta(html, 'description') ?? '';
      image = meta(html, 'og:image');
    } else {
      await res.body?.cancel();
    }
  } catch {
    // Unreachable page: a plain card below.
  }
  const thumb =
    image && opts.uploadThumb ? await fetchThumb(io, new URL(image, uri).toString(), opts.uploadThumb) : null;
  return {
    $type: 'app.bsky.embed.external',
    external: {
      uri,
      title: (title || new URL(uri).hostname).slice(0, 300),
      description: description.slice(0, 1000),
      ...(thumb ? { thumb } : {}),
    },
  };
}

/** The page's og:image as a thumbnail blob, or null (too big, not an image, unreachable). */
async function fetchThumb(io: PlatformIO, url: string, upload: ThumbUploader): Promise<unknown> {
  try {
    const res = await safeFetch(io, url, 'image/*');
    const type = (res.headers.get('content-type') ?? '').split(';')[0].trim();
    const length = Number(res.headers.get('content-length') ?? 0);
    if (!res.ok || !THUMB_TYPES.includes(type) || length > MAX_THUMB) {
      await res.body?.cancel();
      return null;
    }
    // Without a content-length, the size is known only by reading: stop past the limit.
    const { bytes, truncated } = await readAtMost(res, MAX_THUMB);
    if (truncated) return null;
    return await upload(bytes, type);
  } catch {
    // NOTE: a card without a picture is better than a failed post; an upload failure that matters
    // (expired session) will fail the createRecord that follows anyway.
    return null;
  }
}
